// The lobby: recent games, a new game, an import (uses the JSON API only).
import { $, el, fetchBody as api } from "/static/dom.js";

async function loadGames() {
  const games = await api("/api/games");
  const body = $("#games tbody");
  body.replaceChildren();
  for (const g of games) {
    const players = el("td");
    for (const p of g.players) {
      const label = p.bot ? `${p.name} (${p.bot})` : p.name;
      players.append(p.url ? el("a", { href: p.url, class: "join" }, `play as ${label}`) : label, " ");
    }
    body.append(el("tr", { "data-game": g.id },
      el("td", {}, `${g.title} ${g.description || ""}`), players,
      el("td", {}, `${g.status}, action ${g.last_action_id}`),
      el("td", {}, el("a", { href: `/g/${g.id}` }, "watch"))));
  }
}

function parseBots(text) {
  const bots = {};
  for (const part of text.split(",").map((s) => s.trim()).filter(Boolean)) {
    const [seat, kind] = part.split(":");
    bots[seat.trim()] = (kind || "").trim();
  }
  return bots;
}

$("#new-game").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const f = ev.target;
  const players = f.players.value.split(",").map((s) => s.trim()).filter(Boolean);
  const bots = parseBots(f.bots.value);
  const people = players.map((_, i) => i + 1).filter((s) => !(String(s) in bots));
  const body = { title: f.title.value, players, seed: Number(f.seed.value || 0), bots,
                 open_seats: f.open.checked ? people : [],
                 clock_minutes: f.clock.value ? Number(f.clock.value) : null };
  try {
    const g = await api("/api/games", { method: "POST", headers: { "Content-Type": "application/json" },
                                         body: JSON.stringify(body) });
    showLinks(g);
    await loadGames();
  } catch (e) { $("#message").textContent = `error: ${e.message}`; }
});

$("#import-game").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const f = ev.target;
  const text = await f.file.files[0].text();
  const bots = encodeURIComponent(f.bots.value || "");
  try {
    const g = await api(`/api/games/import?bots=${bots}`, { method: "POST",
      headers: { "Content-Type": "application/json" }, body: text });
    showLinks(g);
    await loadGames();
  } catch (e) { $("#message").textContent = `error: ${e.message}`; }
});

function showLinks(g) {
  const list = $("#created ul");
  list.replaceChildren();
  for (const s of g.seats) {
    if (s.url) list.append(el("li", {}, `${s.name}: `, el("a", { href: s.url, class: "seat-link" }, location.origin + s.url)));
  }
  list.append(el("li", {}, "spectators: ", el("a", { href: g.spectator_url }, location.origin + g.spectator_url)));
  $("#created").hidden = false;
}

loadGames().catch((e) => { $("#message").textContent = `error: ${e.message}`; });
