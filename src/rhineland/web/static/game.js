// The game page: the map (SVG from the server), the seat's legal actions (from the
// server's legal_actions, never computed here), the tables, the log, live updates (SSE),
// the history (every past position, replayed by the server: GET ...?at=N).
import { $, el, fetchBody } from "/static/dom.js";

const gameId = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop());

// the fragment: the seat's secret and the position looked at, "#SECRET&at=N" (both
// optional; the secret never leaves the fragment)
function readHash() {
  let found = null;
  let pos = null;
  for (const part of location.hash.slice(1).split("&")) {
    if (!part) continue;
    const m = /^at=(\d{1,9})$/.exec(part);
    if (m) pos = Number(m[1]);
    else found = part;
  }
  return { secret: found, at: pos };
}
const secret = readHash().secret;
let at = readHash().at;  // the past position looked at (actions applied), null: now

let state = null;      // GET /api/games/{id}
let legal = [];        // this seat's legal actions
let selectedHex = null;
let zoom = 1;
let busy = false;
let again = false;

async function api(path, options = {}) {
  const headers = { ...(options.headers || {}) };
  if (secret) headers.Authorization = `Bearer ${secret}`;
  return fetchBody(`/api/games/${encodeURIComponent(gameId)}${path}`, { ...options, headers });
}

function say(text, kind = "info") {
  const m = $("#message");
  m.textContent = text;
  m.dataset.kind = kind;
}

function playerName(pid) {
  const p = state.players.find((x) => x.id === pid);
  return p ? p.name : String(pid);
}

// -- refreshing ---------------------------------------------------------------------
async function refresh() {
  if (busy) { again = true; return; }
  busy = true;
  try {
    do {
      again = false;
      const looking = at;
      try {
        state = await api(looking === null ? "" : `?at=${looking}`);
      } catch (e) {
        if (looking === null || e.status !== 404) throw e;
        say(`no such position: ${e.message}`, "error");
        setAt(null);
        continue;
      }
      if (looking !== null && state.history === null) setAt(null, false);  // that is now
      legal = [];
      if (secret && state.seat !== null && !state.finished && state.history === null) {
        const l = await api("/legal");
        if (l.last_action_id === state.last_action_id) legal = l.actions;
        else again = true;
      }
      // while the seat runs trains: the map with the company's best routes drawn
      const run = legal.find((e) => e.routes);
      const svg = await api(state.history !== null ? `/map.svg?at=${state.history.at}`
        : `/map.svg?v=${state.last_action_id}${run ? `&best=${encodeURIComponent(run.action.entity)}` : ""}`);
      drawMap(svg);
      drawAll();
      if (at !== looking) again = true;  // stepped on while this position loaded
    } while (again);
  } catch (e) {
    say(`error: ${e.message}`, "error");
  } finally {
    busy = false;
  }
}

function drawAll() {
  const past = state.history;
  $("#title").textContent = state.title;
  $("#status").textContent = state.status;
  // the game's last action now (a past position's state says it in history)
  document.body.dataset.lastActionId = past ? past.last_action_id : state.last_action_id;
  document.body.dataset.position = past ? past.at : state.n_actions;
  document.body.classList.toggle("history", past !== null);
  drawHistory();
  drawChatForm();
  const me = state.seat;
  $("#whoami").textContent = me === null ? "watching (spectator)" : `you play ${playerName(me)}`;
  const mine = me !== null && state.acting.includes(me) && !past;
  const myTurn = mine && !state.finished;  // once over, every player "acts"
  document.title = myTurn ? `▶ Your turn — ${state.title}`
    : `${state.title} · ${past ? "history · " : ""}${state.status}`;
  if (!past) tellTurn(myTurn);
  const turn = $("#turn");
  turn.dataset.mine = mine ? "1" : "0";
  if (past) {
    turn.textContent = state.finished ? "then: game over"
      : `then: ${state.acting.map(playerName).join(", ")} to act`;
  } else if (state.finished) {
    const scores = Object.entries(state.result || {}).sort((a, b) => b[1] - a[1])
      .map(([pid, v]) => `${playerName(Number(pid))} ${v}M`).join(", ");
    turn.textContent = `game over: ${scores}`;
  } else {
    turn.textContent = mine ? "your turn" : `waiting for ${state.acting.map(playerName).join(", ")}`;
  }
  $("#undo").hidden = !state.can_undo || past !== null;
  const mePlayer = state.players.find((p) => p.id === me);
  $("#bankline").textContent = (mePlayer ? `your cash ${mePlayer.cash}M · ` : "") +
    `bank ${state.bank}M · phase ${state.phase}`;
  drawActions();
  drawTables();
  drawLog();
}

// the log, newest first: each round under its heading ("SR 1", "OR 2.1")
function drawLog() {
  const sections = state.log_sections.slice().reverse().map((s) => el("section",
    { class: "log-round", "data-round": s.round },
    s.heading ? el("h4", {}, s.heading) : "",
    el("ol", {}, ...s.lines.slice().reverse().map((line) => el("li", {}, line)))));
  $("#log").replaceChildren(...sections);
}

// -- the map ------------------------------------------------------------------------
function drawMap(text) {
  const box = $("#map");
  box.innerHTML = text.replace(/^<\?xml[^>]*>\s*/, "");
  const svg = box.querySelector("svg");
  if (!svg) return;
  svg.removeAttribute("height");
  svg.style.width = `${100 * zoom}%`;
  svg.style.height = "auto";
  const hexes = new Set(legal.filter((e) => e.hex).map((e) => e.hex));
  for (const g of svg.querySelectorAll("g.hex[data-hex]")) {
    g.classList.toggle("legal", hexes.has(g.dataset.hex));
    g.classList.toggle("selected", g.dataset.hex === selectedHex);
  }
  markStops();
}

// the stops of the routes being edited, marked on the map
function markStops() {
  const picked = new Set(editRoutes ? Object.values(editRoutes.stops).flat() : []);
  for (const n of document.querySelectorAll("#map [data-node]")) {
    n.classList.toggle("picked", picked.has(n.dataset.node) || picked.has(n.dataset.node.replace(/-\d+$/, "")));
  }
}

// the stop a click on the map picks: the city or town under the pointer (its node id);
// on a hex with one node (or an offboard, drawn without one), the hex; on a hex with
// two or more, none (the player is asked to click the one meant)
function stopAt(target) {
  const node = target.closest("[data-node]");
  if (node) return node.dataset.node;
  const hex = target.closest("[data-hex]").dataset.hex;
  const nodes = document.querySelectorAll(`#map [data-node^="${CSS.escape(hex)}-"]`);
  if (nodes.length > 1) {
    say(`${hex} has ${nodes.length} stops: click the city or town you mean`, "error");
    return null;
  }
  return nodes.length ? nodes[0].dataset.node : hex;
}

$("#map").addEventListener("click", (ev) => {
  const target = ev.target.closest("[data-hex]");
  if (!target) return;
  if (editRoutes && editRoutes.editing && legal.some((e) => e.routes)) {
    const stop = stopAt(ev.target);
    if (stop) {
      say("");
      editRoutes.stops[editRoutes.editing].push(stop);  // a stop of the route
      changedRoutes();
    }
    return;
  }
  selectedHex = target.dataset.hex;
  for (const g of document.querySelectorAll("#map g.hex")) {
    g.classList.toggle("selected", g.dataset.hex === selectedHex);
  }
  drawHexPanel();
});

$("#zoom-in").addEventListener("click", () => setZoom(zoom * 1.5));
$("#zoom-out").addEventListener("click", () => setZoom(Math.max(1, zoom / 1.5)));
function setZoom(z) {
  zoom = z;
  const svg = $("#map svg");
  if (svg) svg.style.width = `${100 * zoom}%`;
}

function drawHexPanel() {
  const panel = $("#hex-panel");
  if (!selectedHex) { panel.hidden = true; return; }
  const here = legal.filter((e) => e.hex === selectedHex);
  $("#hex-name").textContent = selectedHex;
  const box = $("#hex-choices");
  box.replaceChildren();
  const none = state.history ? "looking back: nothing to do"
    : legal.length ? "nothing to do on this hex now" : "not your turn";
  if (!here.length) box.append(el("p", {}, none));
  for (const e of here) box.append(actionButton(e));
  panel.hidden = false;
}

// -- actions ------------------------------------------------------------------------
// each kind of action as a player says it (headings, hints)
const WORDS = {
  bid: "buy or bid", par: "par a company", buy_shares: "buy shares", sell_shares: "sell shares",
  lay_tile: "lay or upgrade track", place_token: "place a token", run_routes: "run trains",
  dividend: "pay out or withhold", buy_train: "buy a train", discard_train: "discard a train",
  buy_company: "buy a private company", sell_company: "sell a private company",
  special_buy: "vote", assign: "pay", pass: "pass", bankrupt: "go bankrupt",
  take_loan: "take a loan",
};
function words(type) { return WORDS[type] || type.replaceAll("_", " "); }

// the full name of the private company or minor an action names (a button's tooltip)
function cardTitle(a) {
  const sym = a.company || a.minor;
  const card = sym && state.cards.find((c) => c.sym === sym);
  return card ? `${card.name}: ${card.abilities.join(" ")}` : null;
}
function actionButton(entry, label = entry.text) {
  const a = entry.action;
  const b = el("button", { type: "button", class: "act", "data-type": a.type,
                           "data-hex": entry.hex || null,
                           "data-cost": entry.cost === null || entry.cost === undefined ? null : entry.cost,
                           title: cardTitle(a) }, label);
  b.addEventListener("click", () => send(a));
  return b;
}

// many choices of one kind (e.g. every corporation's par prices): a list and one button
const LIST_LIMIT = 8;
function choiceList(type, entries) {
  const select = el("select", { "data-type": type, "aria-label": words(type) });
  entries.forEach((e, i) => select.append(el("option", { value: i }, e.text)));
  const b = el("button", { type: "button", class: "act", "data-type": type }, "go");
  b.addEventListener("click", () => send(entries[Number(select.value)].action));
  return el("div", { class: "amount choice-list" }, select, b);
}

function amountRow(entry) {
  const a = entry.action;
  const { field, min, max, step } = entry.amount;
  const input = el("input", { type: "number", min, max, step, value: min, "data-field": field,
                              "aria-label": `${entry.text}: amount (M)` });
  const cost = el("span", { class: "cost" }, `you pay ${min}M`);
  input.addEventListener("input", () => {
    cost.textContent = entry.cost !== null && entry.cost < 0 ? `you receive ${input.value}M`
      : `you pay ${input.value}M`;
  });
  const b = el("button", { type: "button", class: "act", "data-type": a.type }, "go");
  b.addEventListener("click", () => send({ ...a, [field]: Number(input.value) }));
  return el("div", { class: "amount", "data-type": a.type, "data-text": entry.text },
            el("span", {}, `${entry.text} `), input, b, cost);
}

// a run: the best routes, each train's route editable by its stops (click the stops on
// the map in order, or remove one); the server finds the track and checks the run
let editRoutes = null;   // {entity, stops: {train: [stop...]}, editing: train or null}
function routesRow(entry) {
  const a = entry.action;
  if (!editRoutes || editRoutes.entity !== a.entity || editRoutes.id !== state.last_action_id) {
    const stops = {};
    for (const t of entry.trains || []) stops[t] = [];
    for (const r of a.routes) stops[r.train] = [...(r.nodes || [])];
    editRoutes = { entity: a.entity, id: state.last_action_id, stops, editing: null,
                   asked: 0, preview: null };
    preview();
  }
  const wrap = el("div", { class: "routes", "data-type": a.type });
  wrap.append(actionButton(entry));
  const list = el("ul", { class: "train-routes" });
  for (const [train, stops] of Object.entries(editRoutes.stops)) {
    const editing = editRoutes.editing === train;
    const li = el("li", { "data-train": train, class: editing ? "editing" : null },
                  el("b", {}, `${train}: `));
    if (!stops.length) li.append(el("span", {}, "no route "));
    stops.forEach((stop, i) => {
      li.append(el("span", { class: "stop", "data-stop": stop }, stop));
      if (editing) {
        const x = el("button", { type: "button", class: "remove-stop", "aria-label": `remove ${stop}` }, "×");
        x.addEventListener("click", () => { stops.splice(i, 1); changedRoutes(); });
        li.append(x);
      }
      if (i < stops.length - 1) li.append(" – ");
    });
    const toggle = el("button", { type: "button", class: "edit-route" },
                      editing ? "done" : `edit ${train}`);
    toggle.addEventListener("click", () => {
      editRoutes.editing = editing ? null : train;
      drawActions();
      say(editRoutes.editing ? `editing ${train}: click its stops on the map, a city or town each` : "");
    });
    li.append(" ", toggle);
    if (editing) {
      const clear = el("button", { type: "button", class: "clear-route" }, "clear");
      clear.addEventListener("click", () => { stops.length = 0; changedRoutes(); });
      li.append(clear, el("span", { class: "hint" }, " click the stops on the map in order"));
    }
    list.append(li);
  }
  const go = el("button", { type: "button", class: "act-edited" }, "run these routes");
  go.addEventListener("click", () => runEdited());
  const shown = el("div", { id: "route-preview", class: "route-preview", "aria-live": "polite" });
  wrap.append(list, shown, go);
  drawPreview(shown);
  return wrap;
}

function editedBody() {
  const routes = Object.entries(editRoutes.stops).filter(([, s]) => s.length)
    .map(([train, stops]) => ({ train, stops }));
  return JSON.stringify({ entity: editRoutes.entity, routes, last_action_id: state.last_action_id });
}

// a change of the stops: redrawn, marked on the map, and previewed by the server
function changedRoutes() {
  drawActions();
  markStops();
  preview();
}

// the engine's answer for the routes as they stand (nothing is sent to the game): each
// route's revenue and the total, or why the rules refuse them; the best found beside it
async function preview() {
  const mine = editRoutes;
  const asked = ++mine.asked;
  mine.preview = null;
  drawPreview();
  try {
    const answer = await api("/routes/preview", { method: "POST",
      headers: { "Content-Type": "application/json" }, body: editedBody() });
    if (mine !== editRoutes || asked !== mine.asked) return;  // a newer one is on its way
    mine.preview = answer;
  } catch (e) {
    if (mine !== editRoutes || asked !== mine.asked) return;
    mine.preview = { legal: false, error: e.message, best: null, failed: true };
  }
  drawPreview();
}

function drawPreview(box = $("#route-preview")) {
  if (!box || !editRoutes) return;
  const p = editRoutes.preview;
  box.dataset.state = !p ? "asking" : p.legal ? "legal" : "illegal";
  if (!p) { box.replaceChildren(el("p", { class: "hint" }, "working out the revenue…")); return; }
  const lines = [];
  if (p.legal) {
    lines.push(el("ul", { class: "preview-routes" }, ...p.routes.map((r) => el("li",
      { "data-train": r.train, "data-revenue": r.revenue },
      `${r.train}: ${r.nodes.join(" – ")} · ${r.revenue}M`))));
  } else {
    lines.push(el("p", { class: "preview-error" }, `${p.failed ? "no preview" : "not legal"}: ${p.error}`));
  }
  const best = p.best;
  if (best && p.legal) {
    const d = best.revenue - p.revenue;
    const diff = d > 0 ? `${d}M less` : d < 0 ? `${-d}M more than the best found` : "the best";
    lines.push(el("p", { class: "preview-total", "data-revenue": p.revenue, "data-best": best.revenue,
                         "data-difference": d },
      `your routes ${p.revenue}M, best ${best.revenue}M: ${diff}`));
  } else if (best) {
    lines.push(el("p", { class: "preview-total", "data-best": best.revenue },
      `best ${best.revenue}M (drawn on the map)`));
  }
  box.replaceChildren(...lines);
}

async function runEdited() {
  say("sending…");
  try {
    state = await api("/routes", { method: "POST", headers: { "Content-Type": "application/json" },
      body: editedBody() });
    say("");
    editRoutes = null;
  } catch (e) {
    say(`${e.status === 409 ? "the game moved on: " : "refused: "}${e.message}`, "error");
  }
  await refresh();
}

function drawActions() {
  const box = $("#actions");
  box.replaceChildren();
  if (state.history) box.append(el("p", { class: "hint" }, "a past position: no actions (back to now to act)"));
  const onMap = legal.filter((e) => e.hex);
  const groups = new Map();
  for (const e of legal) {
    if (e.hex) continue;
    const t = e.action.type;
    if (!groups.has(t)) groups.set(t, []);
    groups.get(t).push(e);
  }
  if (onMap.length) {
    const kinds = [...new Set(onMap.map((e) => words(e.action.type)))].join(" or ");
    const hexes = new Set(onMap.map((e) => e.hex));
    box.append(el("p", { class: "hint" }, `${kinds}: click one of the ${hexes.size} highlighted hexes (${[...hexes].sort().join(", ")})`));
  }
  for (const [type, entries] of groups) {
    const group = el("div", { class: "group", "data-group": type });
    if (groups.size > 1 || entries.length > 6) group.append(el("h4", {}, words(type)));
    const plain = entries.filter((e) => !e.amount && !e.routes);
    if (plain.length > LIST_LIMIT) group.append(choiceList(type, plain));
    for (const e of entries) {
      if (e.amount) group.append(amountRow(e));
      else if (e.routes) group.append(routesRow(e));
      else if (plain.length <= LIST_LIMIT) group.append(actionButton(e));
    }
    box.append(group);
  }
  drawHexPanel();
}

async function send(action) {
  if (!state) return;
  say("sending…");
  try {
    state = await api("/actions", { method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ action, last_action_id: state.last_action_id }) });
    say("");
    selectedHex = null;
  } catch (e) {
    say(`${e.status === 409 ? "the game moved on: " : "refused: "}${e.message}`, "error");
  }
  await refresh();
}

$("#undo").addEventListener("click", async () => {
  try {
    await api("/undo", { method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ last_action_id: state.last_action_id }) });
    say("undone");
  } catch (e) { say(`refused: ${e.message}`, "error"); }
  await refresh();
});

// -- tables -------------------------------------------------------------------------
const money = (m) => (m === null || m === undefined ? "–" : `${m}M`);

// a company's symbol in its colours
function badge(sym) {
  const b = el("span", { class: "badge", "data-company": sym }, sym);
  const c = state.market.colors[sym];
  if (c) { b.style.backgroundColor = c[0]; b.style.color = c[1]; }
  return b;
}

function drawTables() {
  drawSheet();
  drawMarket();
  drawCards();
  drawRoster();
  drawTiles();
}

// 18xx.games' spreadsheet: a row per company (shares per player, IPO, market, prices,
// treasury, trains, tokens, privates, last revenue), the players' totals below
function drawSheet() {
  const { players, companies } = state.sheet;
  const bots = Object.fromEntries(state.players.map((p) => [p.id, p.bot]));
  for (const p of players) p.bot = bots[p.id];
  const flags = (p) => (p.bot ? ` (${p.bot})` : "") + (p.bankrupt ? " (bankrupt)" : "") +
    (p.priority ? " ★" : "");
  $("#sheet thead").replaceChildren(el("tr", {}, el("th", {}, "company"),
    ...players.map((p) => el("th", { class: state.acting.includes(p.id) ? "player acting" : "player",
                                     "data-player": p.id },
      p.name + flags(p))),
    ...["IPO", "market", "price", "par", "treasury", "trains", "tokens", "privates", "last run"]
      .map((t) => el("th", {}, t))));
  const limit = state.train_limit;
  $("#sheet tbody").replaceChildren(...companies.map((c) => {
    const pres = c.president === null ? "receivership" : c.president;
    const row = el("tr", { "data-company": c.sym, class: c.kind },
      el("th", { title: `${c.name} · president: ${pres}` }, badge(c.sym)),
      ...players.map((p) => {
        const pct = c.kind === "minor" ? (c.president === p.name ? "owner" : "")
          : (p.shares[c.sym] ? `${p.shares[c.sym]}%${p.president_of.includes(c.sym) ? " P" : ""}` : "");
        return el("td", { "data-player": p.id, class: "share" }, pct);
      }),
      el("td", {}, c.ipo === null ? "" : `${c.ipo}%`),
      el("td", {}, c.market === null ? "" : `${c.market}%`),
      el("td", { class: "price" }, money(c.price)),
      el("td", {}, c.par === null ? "" : money(c.par)),
      el("td", { class: "treasury" }, money(c.cash)),
      el("td", { class: "trains" }, (c.trains.join(" ") || "–") +
         ` (limit ${c.kind === "minor" ? limit.minor : limit.corporation})`),
      el("td", { class: "tokens" }, `${c.tokens_left} of ${c.tokens} left` +
         (c.next_token ? ` (next ${c.next_token}M)` : "")),
      el("td", {}, c.privates.join(", ")),
      el("td", { class: "revenue" }, c.last_revenue === null ? "–"
        : `${c.last_revenue}M${c.last_kind ? ` ${c.last_kind === "payout" ? "paid out" : c.last_kind === "withhold" ? "withheld" : "half paid"}` : ""}`));
    return row;
  }));
  const foot = (label, cls, cell) => el("tr", { class: cls }, el("th", {}, label),
    ...players.map((p) => el("td", { "data-player": p.id, class: cls }, cell(p))),
    el("td", { colspan: 9 }, ""));
  $("#sheet tfoot").replaceChildren(
    foot("cash", "cash", (p) => `${p.cash}M`),
    foot("value", "value", (p) => `${p.value}M`),
    foot("certificates", "certs", (p) => `${p.certs} of ${p.cert_limit}`),
    foot("privates", "privates", (p) => p.privates.join(", ") + (p.bonds ? ` ${p.bonds}× AdSK` : "") || "–"),
    foot("clock", "clock", () => ""));
  fetchedAt = Date.now();
  drawClocks();
}

// the stock market: each cell its price, the companies on it in their colours
function drawMarket() {
  const rows = state.market.rows;
  const grid = $("#market-grid");
  if (!grid.caption) {
    grid.createCaption().append(el("span", { class: "swatch-par" }, ""), " par prices · a cell's companies: the top one first");
  }
  $("#market-grid tbody").replaceChildren(...rows.map((row, r) => el("tr", { "data-row": r },
    ...row.map((cell, col) => {
      if (!cell) return el("td", { class: "none" }, "");
      const td = el("td", { class: cell.par ? "cell par" : "cell", "data-price": cell.price,
                            "data-col": col, title: cell.par ? "par price" : null },
        el("div", { class: "price" }, String(cell.price)),
        ...cell.companies.map((sym) => badge(sym)));
      if (cell.companies.length) td.classList.add("held");
      return td;
    }))));
}

function cardNode(c) {
  const facts = [`face value ${c.value}M`];
  if (c.kind === "bonds") facts.push(`${c.count} bonds`, `revenue ${c.revenue}M each`);
  else if (c.kind === "minor") {
    facts.push(`home ${c.home}`, `treasury ${c.cash}M`, `trains ${c.trains.join(" ") || "–"}`,
               `last run ${c.revenue === null ? "–" : `${c.revenue}M`}`);
  } else facts.push(`revenue ${c.revenue}M`);
  const owner = c.kind === "bonds"
    ? Object.entries(c.owners).map(([who, n]) => `${who}: ${n}`).join(", ")
    : c.owner;
  return el("article", { class: `card ${c.kind}${c.closed ? " closed" : ""}`, "data-company": c.sym },
    el("h4", {}, el("span", { class: "sym" }, c.sym), " ", el("span", { class: "name" }, c.name)),
    el("p", { class: "facts" }, facts.join(" · ")),
    el("ul", { class: "abilities" }, ...c.abilities.map((a) => el("li", {}, a))),
    el("p", { class: "owner" }, `owner: ${owner}`));
}

function drawCards() {
  const cards = state.cards;
  $("#minors-title").hidden = !cards.some((c) => c.kind === "minor");
  // the opening (auction, Starting Package): the cards for sale beside the actions,
  // the others below
  const opening = /^(Auction|Draft)/.test(state.round) && !state.finished;
  const onOffer = (c) => opening && !c.closed && c.owner_id === null && c.kind !== "bonds";
  const forSale = cards.filter(onOffer);
  $("#offer").hidden = !forSale.length;
  $("#offer-cards").replaceChildren(...forSale.map(cardNode));
  $("#cards").replaceChildren(...cards.filter((c) => !onOffer(c)).map(cardNode));
}

function drawRoster() {
  $("#roster tbody").replaceChildren(...state.roster.map((t) => {
    const owned = Object.entries(t.owners).map(([s, n]) => (n > 1 ? `${s} ×${n}` : s)).join(", ");
    const ph = t.phase;
    const limit = ph && (typeof ph.train_limit === "number" ? ph.train_limit
      : Object.entries(ph.train_limit).map(([k, v]) => `${k} ${v}`).join(", "));
    const notes = [];
    if (t.available_on) notes.push(`sold from the first ${t.available_on}-train on`);
    const trade = Object.entries(t.trade_in);
    if (trade.length) notes.push(`trade-in: ${trade.map(([n, m]) => `${n}-train ${m}M`).join(", ")}`);
    if (t.events.length) notes.push(t.events.join(", "));
    if (t.rusted) notes.push(`${t.rusted} rusted`);
    return el("tr", { "data-train": t.name, class: t.next ? "next" : null },
      el("th", {}, `${t.name}-train`),
      el("td", {}, `${t.price}M`),
      el("td", { class: "left" }, `${t.depot} of ${t.count}`),
      el("td", {}, String(t.market || "")),
      el("td", {}, owned),
      el("td", { class: "rusts-on" }, t.rusts_on ? `first ${t.rusts_on}-train bought` : "never"),
      el("td", { class: "rusts" }, t.rusts.map((n) => `${n}-trains`).join(", ")),
      el("td", { class: "phase" }, ph ? `${ph.name}: ${ph.tiles.join(", ")} tiles, limit ${limit}, ${ph.ors} OR${ph.ors > 1 ? "s" : ""}` : ""),
      el("td", {}, notes.join("; ")));
  }));
}

function drawTiles() {
  $("#tiles").replaceChildren(...state.tiles.map((g) => {
    const head = el("h4", {}, `${g.color}: ${g.left} of ${g.count} left` + (g.allowed ? "" : " (not yet)"));
    const group = el("div", { class: `tile-group${g.allowed ? "" : " later"}`, "data-color": g.color }, head,
      el("div", { class: "tile-list" }, ...g.tiles.map((t) => {
        const chip = el("span", { class: t.left ? "tile" : "tile none", "data-tile": t.name,
                                  title: `tile ${t.name}: ${t.left} of ${t.count} left` },
          el("b", {}, t.name), ` ×${t.left}`);
        chip.style.backgroundColor = g.fill;
        return chip;
      })));
    return group;
  }));
}

// -- the chess clock (shown when the game has one) ------------------------------------
let fetchedAt = Date.now();
function clockText(seconds) {
  const s = Math.abs(Math.round(seconds));
  const text = `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
  return seconds < 0 ? `-${text} (out of time)` : text;
}
function drawClocks() {
  const clock = state && state.clock;
  for (const row of document.querySelectorAll("#sheet tr.clock")) row.hidden = !clock;
  for (const cell of document.querySelectorAll("#sheet td.clock[data-player]")) {
    cell.hidden = !clock;
    if (!clock) continue;
    const pid = Number(cell.dataset.player);
    let left = clock.left[String(pid)];
    if (clock.running === pid && !state.history) left -= (Date.now() - fetchedAt) / 1000;
    cell.textContent = clockText(left);
    cell.classList.toggle("running", clock.running === pid);
  }
}
setInterval(drawClocks, 1000);

// -- the history: every position of the game, replayed by the server ---------------------
// positions: 0 (the start) to the number of actions (now); the map and the tables are
// the server's for that position, no action is offered, live updates do not move it
function positions() {
  const past = state.history;
  return { pos: past ? past.at : state.n_actions, of: past ? past.of : state.n_actions };
}

function hashFor(pos) {
  const parts = [secret, pos === null ? null : `at=${pos}`].filter(Boolean);
  return parts.length ? `#${parts.join("&")}` : "";
}

// look at position `pos` (null or the last one: now); `load`: fetch it
function setAt(pos, load = true) {
  const next = pos === null || (state && pos >= positions().of) ? null : Math.max(0, pos);
  if (next === at && load) return;
  at = next;
  history.replaceState(null, "", location.pathname + location.search + hashFor(at));
  if (next !== null) { selectedHex = null; editRoutes = null; }
  if (load) refresh();
}

function roundStart(pos, dir) {
  const starts = state.rounds.map((r) => r.at);
  if (dir < 0) return starts.filter((s) => s < pos).pop() ?? 0;
  return starts.find((s) => s > pos) ?? null;
}

function drawHistory() {
  const { pos, of } = positions();
  const past = state.history;
  const round = state.rounds.filter((r) => r.at <= pos).pop();
  const where = pos === 0 ? "the start" : `after action ${pos} of ${of}`;
  $("#h-where").textContent = past ? `${round ? `${round.heading} · ` : ""}${where}` : `now: ${of} actions`;
  for (const id of ["#h-first", "#h-prev", "#h-prev-round"]) $(id).disabled = pos === 0;
  for (const id of ["#h-next", "#h-next-round", "#h-last"]) $(id).disabled = pos >= of;
  $("#h-banner").hidden = !past;
  // the position for anyone (the spectator's view: no secret in a shared link)
  $("#h-link").href = `/g/${encodeURIComponent(gameId)}#at=${pos}`;
}

const step = (delta) => { const { pos } = positions(); setAt(pos + delta); };
$("#h-first").addEventListener("click", () => setAt(0));
$("#h-prev").addEventListener("click", () => step(-1));
$("#h-next").addEventListener("click", () => step(1));
$("#h-last").addEventListener("click", () => setAt(null));
$("#h-now").addEventListener("click", () => setAt(null));
$("#h-prev-round").addEventListener("click", () => setAt(roundStart(positions().pos, -1)));
$("#h-next-round").addEventListener("click", () => setAt(roundStart(positions().pos, 1)));
document.addEventListener("keydown", (ev) => {
  if (!state || ev.ctrlKey || ev.metaKey || ev.altKey) return;
  if (ev.target.closest && ev.target.closest("input, select, textarea, [contenteditable]")) return;
  if (ev.key !== "ArrowLeft" && ev.key !== "ArrowRight") return;
  const dir = ev.key === "ArrowLeft" ? -1 : 1;
  ev.preventDefault();
  if (ev.shiftKey) setAt(roundStart(positions().pos, dir));
  else step(dir);
});
window.addEventListener("hashchange", () => {
  const wanted = readHash().at;
  if (wanted !== at) { at = wanted; refresh(); }
});

// -- the chat: the seats write, everyone reads (every text as text) ------------------------
let chatAsked = 0;
async function loadChat() {
  const asked = ++chatAsked;
  try {
    const { messages } = await api("/chat");
    if (asked === chatAsked) drawChat(messages);  // a newer answer is on its way
  } catch (e) {
    say(`chat: ${e.message}`, "error");
  }
}

function drawChat(messages) {
  const box = $("#chat");
  const me = state ? state.seat : null;
  box.replaceChildren(...messages.map((m) => el("li",
    { "data-id": m.id, "data-seat": m.seat, class: m.seat === me ? "mine" : null,
      title: m.at ? `after action ${m.at}` : "before the first action" },
    el("b", { class: "name" }, m.name), ": ", el("span", { class: "text" }, m.text))));
  box.scrollTop = box.scrollHeight;
  document.body.dataset.chatId = messages.length ? messages[messages.length - 1].id : 0;
}

function drawChatForm() {
  const seated = secret !== null && state && state.seat !== null;
  $("#chat-form").hidden = !seated;
  $("#chat-watch").hidden = seated;
  $("#note-box").hidden = !seated;
  $("#alerts-box").hidden = !seated;
  drawNotifyButton(seated);
  if (seated) {
    loadMine("/note", showNote);
    loadMine("/alerts", showAlerts);
  }
}

// a seat's own things on the server (its note, its alerts): read once, saved by PUT
const loaded = new Set();
function loadMine(path, show) {
  if (loaded.has(path)) return;
  loaded.add(path);
  api(path).then(show).catch((e) => { loaded.delete(path); say(`${path.slice(1)}: ${e.message}`, "error"); });
}

async function saveMine(path, body, said, show) {
  try {
    show(await api(path, { method: "PUT", headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body) }));
    $(said).textContent = "saved";
  } catch (e) { $(said).textContent = `not saved: ${e.message}`; }
}

// the seat's private note: kept on the server, read by this seat only
function showNote(n) { $("#note-text").value = n.text; }
$("#note-save").addEventListener("click", () =>
  saveMine("/note", { text: $("#note-text").value }, "#note-said", showNote));

// the seat's alerts: a webhook, an e-mail address (when the server sends mail)
function showAlerts(a) {
  $("#alert-webhook").value = a.webhook || "";
  $("#alert-email").value = a.email || "";
  $("#alert-email-label").hidden = !a.mail;
  $("#alerts-box").dataset.mail = a.mail ? "1" : "0";
}
$("#alerts-save").addEventListener("click", () => {
  const body = { webhook: $("#alert-webhook").value };
  if ($("#alerts-box").dataset.mail === "1") body.email = $("#alert-email").value;
  saveMine("/alerts", body, "#alerts-said", showAlerts);
});

// -- your turn: the tab's title (drawAll) and, if allowed, a browser notification ------
let wasMine = null;  // whether it was this seat's turn at the last drawing (null: no drawing yet)
function tellTurn(mine) {
  const before = wasMine;
  wasMine = mine;
  if (!mine || before !== false || document.visibilityState === "visible") return;
  if (!("Notification" in window) || Notification.permission !== "granted") return;
  try {
    new Notification(`Your turn: ${state.title}`, { body: state.status, tag: `rhineland-${gameId}` });
  } catch (e) {
    say(`notification: ${e.message}`, "error");  // e.g. a browser that allows them from workers only
  }
}

// asked only when the player presses the button, never on load
function drawNotifyButton(seated) {
  const can = "Notification" in window;
  const perm = can ? Notification.permission : "unsupported";
  $("#notify-me").hidden = !seated || perm !== "default";
  $("#notify-said").textContent = !seated ? ""
    : perm === "granted" ? "browser notifications on (while this tab is not shown)"
      : perm === "denied" ? "notifications are blocked in this browser" : "";
}
$("#notify-me").addEventListener("click", async () => {
  try { await Notification.requestPermission(); } catch (e) { say(`notifications: ${e.message}`, "error"); }
  drawNotifyButton(true);
});

$("#chat-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const input = $("#chat-text");
  if (!input.value.trim()) return;
  try {
    await api("/chat", { method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ text: input.value }) });
    input.value = "";
  } catch (e) { say(`chat: ${e.message}`, "error"); }
  await loadChat();
});

// -- live updates -------------------------------------------------------------------
function listen() {
  const source = new EventSource(`/api/games/${encodeURIComponent(gameId)}/events`);
  source.addEventListener("open", () => {
    $("#conn").textContent = "live";
    $("#conn").dataset.live = "1";
    loadChat();  // what was written while the stream was away
  });
  source.addEventListener("error", () => { $("#conn").textContent = "reconnecting"; $("#conn").dataset.live = "0"; });
  source.addEventListener("action", (ev) => {
    const { last_action_id } = JSON.parse(ev.data);
    // in history the position stays; its state says how many actions there are now
    const seen = state && (state.history ? state.history.last_action_id : state.last_action_id);
    if (last_action_id !== seen) refresh();
  });
  source.addEventListener("chat", (ev) => {
    const { id } = JSON.parse(ev.data);
    if (String(id) !== document.body.dataset.chatId) loadChat();
  });
}

$("#export").href = `/api/games/${encodeURIComponent(gameId)}/export`;
$("#export").setAttribute("download", `${gameId}.json`);
window.rhinelandLoaded = Date.now();  // a reload would reset it (the browser test checks)
refresh().then(listen);
