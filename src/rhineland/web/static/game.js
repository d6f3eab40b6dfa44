// The game page: the map (SVG from the server), the seat's legal actions (from the
// server's legal_actions, never computed here), the tables, the log, live updates (SSE).
import { $, el, fetchBody } from "/static/dom.js";

const gameId = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop());
const secret = location.hash.slice(1) || null;

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
      state = await api("");
      legal = [];
      if (secret && state.seat !== null && !state.finished) {
        const l = await api("/legal");
        if (l.last_action_id === state.last_action_id) legal = l.actions;
        else again = true;
      }
      const svg = await api(`/map.svg?v=${state.last_action_id}`);
      drawMap(svg);
      drawAll();
    } while (again);
  } catch (e) {
    say(`error: ${e.message}`, "error");
  } finally {
    busy = false;
  }
}

function drawAll() {
  document.title = `${state.title} · ${state.status}`;
  $("#title").textContent = state.title;
  $("#status").textContent = state.status;
  document.body.dataset.lastActionId = state.last_action_id;
  const me = state.seat;
  $("#whoami").textContent = me === null ? "watching (spectator)" : `you play ${playerName(me)}`;
  const mine = me !== null && state.acting.includes(me);
  const turn = $("#turn");
  turn.dataset.mine = mine ? "1" : "0";
  if (state.finished) {
    const scores = Object.entries(state.result || {}).sort((a, b) => b[1] - a[1])
      .map(([pid, v]) => `${playerName(Number(pid))} ${v}M`).join(", ");
    turn.textContent = `game over: ${scores}`;
  } else {
    turn.textContent = mine ? "your turn" : `waiting for ${state.acting.map(playerName).join(", ")}`;
  }
  $("#undo").hidden = !state.can_undo;
  drawActions();
  drawTables();
  $("#panels").src = `/api/games/${encodeURIComponent(gameId)}/panels.svg?v=${state.last_action_id}`;
  const log = $("#log");
  log.replaceChildren(...state.log.slice().reverse().map((line) => el("li", {}, line)));
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
}

$("#map").addEventListener("click", (ev) => {
  const target = ev.target.closest("[data-hex]");
  if (!target) return;
  if (editRoutes && editRoutes.editing && legal.some((e) => e.routes)) {
    editRoutes.stops[editRoutes.editing].push(target.dataset.hex);  // a stop of the route
    drawActions();
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
  if (!here.length) box.append(el("p", {}, legal.length ? "nothing to do on this hex now" : "not your turn"));
  for (const e of here) box.append(actionButton(e));
  panel.hidden = false;
}

// -- actions ------------------------------------------------------------------------
function actionButton(entry, label = entry.text) {
  const a = entry.action;
  const b = el("button", { type: "button", class: "act", "data-type": a.type,
                           "data-hex": entry.hex || null }, label);
  b.addEventListener("click", () => send(a));
  return b;
}

// many choices of one kind (e.g. every corporation's par prices): a list and one button
const LIST_LIMIT = 8;
function choiceList(type, entries) {
  const select = el("select", { "data-type": type, "aria-label": type.replaceAll("_", " ") });
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
  const b = el("button", { type: "button", class: "act", "data-type": a.type }, "go");
  b.addEventListener("click", () => send({ ...a, [field]: Number(input.value) }));
  return el("div", { class: "amount", "data-type": a.type, "data-text": entry.text },
            el("span", {}, `${entry.text} `), input, b);
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
    editRoutes = { entity: a.entity, id: state.last_action_id, stops, editing: null };
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
        x.addEventListener("click", () => { stops.splice(i, 1); drawActions(); });
        li.append(x);
      }
      if (i < stops.length - 1) li.append(" – ");
    });
    const toggle = el("button", { type: "button", class: "edit-route" },
                      editing ? "done" : `edit ${train}`);
    toggle.addEventListener("click", () => {
      editRoutes.editing = editing ? null : train;
      drawActions();
    });
    li.append(" ", toggle);
    if (editing) {
      const clear = el("button", { type: "button", class: "clear-route" }, "clear");
      clear.addEventListener("click", () => { stops.length = 0; drawActions(); });
      li.append(clear, el("span", { class: "hint" }, " click the stops on the map in order"));
    }
    list.append(li);
  }
  const go = el("button", { type: "button", class: "act-edited" }, "run these routes");
  go.addEventListener("click", () => runEdited());
  wrap.append(list, go);
  return wrap;
}

async function runEdited() {
  const routes = Object.entries(editRoutes.stops).filter(([, s]) => s.length)
    .map(([train, stops]) => ({ train, stops }));
  say("sending…");
  try {
    state = await api("/routes", { method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ entity: editRoutes.entity, routes, last_action_id: state.last_action_id }) });
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
  const onMap = legal.filter((e) => e.hex);
  const groups = new Map();
  for (const e of legal) {
    if (e.hex) continue;
    const t = e.action.type;
    if (!groups.has(t)) groups.set(t, []);
    groups.get(t).push(e);
  }
  if (onMap.length) {
    const kinds = [...new Set(onMap.map((e) => e.action.type.replace("_", " ")))].join(" or ");
    const hexes = new Set(onMap.map((e) => e.hex));
    box.append(el("p", { class: "hint" }, `${kinds}: click one of the ${hexes.size} highlighted hexes (${[...hexes].sort().join(", ")})`));
  }
  for (const [type, entries] of groups) {
    const group = el("div", { class: "group", "data-group": type });
    if (groups.size > 1 || entries.length > 6) group.append(el("h4", {}, type.replaceAll("_", " ")));
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
function drawTables() {
  const players = $("#players tbody");
  players.replaceChildren(...state.players.map((p) => el("tr",
    { "data-player": p.id, class: state.acting.includes(p.id) ? "acting" : null },
    el("td", {}, p.name + (p.bot ? ` (${p.bot})` : "") + (p.bankrupt ? " (bankrupt)" : "")),
    el("td", {}, `${p.cash}M`),
    el("td", {}, Object.entries(p.shares).map(([s, pct]) => `${s} ${pct}%`).join(", ") || "–"),
    el("td", {}, p.privates.join(", ") || "–"),
    el("td", {}, `${p.value}M`),
    el("td", { class: "clock", "data-player": p.id }, ""))));
  fetchedAt = Date.now();
  drawClocks();
  const corps = $("#companies tbody");
  corps.replaceChildren(...state.corporations.map((c) => el("tr", { "data-company": c.sym },
    el("td", {}, c.sym),
    el("td", {}, c.president === null ? "receivership" : playerName(c.president)),
    el("td", {}, c.price === null ? "–" : `${c.price}M`),
    el("td", {}, c.par === null ? "–" : `${c.par}M`),
    el("td", {}, `${c.cash}M`),
    el("td", {}, c.trains.join(" ") || "–"),
    el("td", {}, c.tokens.join(" ") + (c.tokens_left === null ? "" : ` (${c.tokens_left} left)`)),
    el("td", {}, c.ipo === null ? "–" : `${c.ipo}%`),
    el("td", {}, c.market === null ? "–" : `${c.market}%`))));
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
  $("#clock-head").hidden = !clock;
  for (const cell of document.querySelectorAll("#players td.clock")) {
    cell.hidden = !clock;
    if (!clock) continue;
    const pid = Number(cell.dataset.player);
    let left = clock.left[String(pid)];
    if (clock.running === pid) left -= (Date.now() - fetchedAt) / 1000;
    cell.textContent = clockText(left);
    cell.classList.toggle("running", clock.running === pid);
  }
}
setInterval(drawClocks, 1000);

// -- live updates -------------------------------------------------------------------
function listen() {
  const source = new EventSource(`/api/games/${encodeURIComponent(gameId)}/events`);
  source.addEventListener("open", () => { $("#conn").textContent = "live"; $("#conn").dataset.live = "1"; });
  source.addEventListener("error", () => { $("#conn").textContent = "reconnecting"; $("#conn").dataset.live = "0"; });
  source.addEventListener("action", (ev) => {
    const { last_action_id } = JSON.parse(ev.data);
    if (!state || last_action_id !== state.last_action_id) refresh();
  });
}

$("#export").href = `/api/games/${encodeURIComponent(gameId)}/export`;
$("#export").setAttribute("download", `${gameId}.json`);
window.rhinelandLoaded = Date.now();  // a reload would reset it (the browser test checks)
refresh().then(listen);
