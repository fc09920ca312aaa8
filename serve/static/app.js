// The page of `wargym serve --http`: play a wargym game against the server's bots.
// It speaks the same protocol as any other client (serve/PROTOCOL.md) over the WebSocket /v1/ws:
// new_match, then move (your clicks) and advance (one bot decision at a time, so each is shown).
"use strict";

const $ = (id) => document.getElementById(id);
const BOT_PAUSE_MS = 350;  // between two bot moves, so a person can follow them
const S = { info: null, ws: null, waiting: new Map(), nextId: 1, match: null, seq: 0, hash: null,
            seat: 0, bots: {}, legal: [], boardMap: null, picked: null };

function setPhase(phase) { document.body.dataset.phase = phase; }

function status(text, isError) {
  $("status").textContent = text;
  $("status").className = isError ? "error" : "";
}

function connect() {
  if (S.ws && S.ws.readyState === WebSocket.OPEN) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/v1/ws`);
    ws.onopen = () => { S.ws = ws; resolve(); };
    ws.onerror = () => reject(new Error("cannot reach the server's WebSocket"));
    ws.onclose = () => {
      for (const done of S.waiting.values()) done({ ok: false, error: { code: "closed", message: "connection closed" } });
      S.waiting.clear();
      S.ws = null;
    };
    ws.onmessage = (event) => {
      const reply = JSON.parse(event.data);
      const done = S.waiting.get(reply.id);
      if (done) { S.waiting.delete(reply.id); done(reply); }
    };
  });
}

async function request(msg) {
  await connect();
  const id = S.nextId++;
  return new Promise((resolve) => {
    S.waiting.set(id, resolve);
    S.ws.send(JSON.stringify({ v: 1, id, ...msg }));
  });
}

function gameEntry() { return S.info.games.find((g) => g.game === $("game").value); }

function seatsWanted() {
  const entry = gameEntry();
  if ("solitaire" in entry.options && $("solitaire").checked) return 1;
  if ("players" in entry.options) return Math.max(2, Math.min(6, +$("players").value || 2));
  return 2;
}

function updateSetup() {
  const entry = gameEntry();
  $("solitaire-box").hidden = !("solitaire" in entry.options);
  // the solitaire game is for two (the person and the rulebook's automaton)
  $("players-box").hidden = !("players" in entry.options) || (!$("solitaire-box").hidden && $("solitaire").checked);
  const n = seatsWanted();
  const seat = Math.min(+$("seat").value || 0, n - 1);
  $("seat").replaceChildren(...Array.from({ length: n }, (_, s) => new Option(`player ${s}`, s, false, s === seat)));
  const bot = $("bot").value;
  const names = entry.bots.filter((b) => !b.startsWith("test:"));
  $("bot").replaceChildren(...names.map((b) => new Option(b, b, false, b === bot || (!bot && b === "scripted"))));
}

async function loadInfo() {
  const response = await fetch("/v1/info");
  S.info = await response.json();
  const games = S.info.games.filter((g) => g.available);
  $("game").replaceChildren(...games.map((g) => new Option(`${g.game}: ${g.about}`, g.game)));
  updateSetup();
  setPhase("idle");
}

async function startGame(event) {
  event.preventDefault();
  let options;
  try {
    options = JSON.parse($("options").value || "{}");
  } catch (err) {
    status(`More options is not JSON: ${err.message}`, true);
    return;
  }
  const entry = gameEntry();
  if ("players" in entry.options && !$("players-box").hidden) options.players = +$("players").value;
  if ("solitaire" in entry.options && $("solitaire").checked) options.solitaire = true;
  const n = seatsWanted();
  const seat = +$("seat").value;
  const level = +$("level").value || 10;
  const bots = {};
  for (let s = 0; s < n; s++) {
    if (s === seat) continue;
    const name = $("bot").value;
    bots[s] = level < 10 && name !== "random" ? { name, level } : name;
  }
  const msg = { type: "new_match", game: entry.game, options, bots, bot_moves: "one", legal: true };
  if ($("seed").value !== "") msg.seed = +$("seed").value;
  setPhase("starting");
  status("starting…");
  const reply = await request(msg);
  if (!reply.ok) { status(`${reply.error.code}: ${reply.error.message}`, true); setPhase("idle"); return; }
  S.match = reply.match; S.seat = seat; S.bots = reply.seats.bots;
  $("log").replaceChildren();
  $("result").hidden = true;
  const link = $("download");
  link.href = `/v1/matches/${S.match}/save`;
  link.download = `${entry.game}-${S.match}.wargym`;
  link.hidden = false;
  show(reply);
}

function who(event) {
  if (event.by === "client") return "you";
  const bot = S.bots[String(event.seat)];
  return bot ? bot.name + (bot.level < 10 ? ` (level ${bot.level})` : "") : "bot";
}

function show(reply) {
  for (const ev of reply.events) {
    const li = document.createElement("li");
    li.value = ev.seq;
    li.className = ev.by;
    li.textContent = `player ${ev.seat}, ${who(ev)}: ${ev.name}${ev.fallback ? " (fallback: past its time limit)" : ""}`;
    $("log").append(li);
    li.scrollIntoView({ block: "nearest" });
  }
  S.seq = reply.seq; S.hash = reply.state_hash; S.legal = reply.legal || [];
  S.boardMap = null; S.picked = null;
  drawBoard();
  if (reply.your_turn) loadBoardMap();
  if (reply.over) {
    const r = reply.result;
    const returns = r.returns.map((x, p) => `player ${p}: ${x}`).join(", ");
    $("result").textContent = `Game over${r.truncated ? " (cut off by max_decisions)" : ""}. Returns ${returns}. ${JSON.stringify(r.info)}`;
    $("result").hidden = false;
    status(`game over after ${reply.seq} decisions`);
    showLegal([]);
    setPhase("over");
  } else if (reply.your_turn) {
    status(`your move (player ${reply.to_move}), decision ${reply.seq + 1}`);
    showLegal(S.legal);
    setPhase("your-turn");
  } else {
    status(`player ${reply.to_move} (${who({ by: "bot", seat: reply.to_move })}) is thinking…`);
    showLegal([]);
    setPhase("bots");
    const match = S.match;
    setTimeout(() => { if (S.match === match) advance(); }, BOT_PAUSE_MS);
  }
}

function drawBoard() {
  const img = $("board");
  const seq = S.seq;
  drawSpots();  // (clears the last position's highlights)
  img.onload = () => { img.dataset.seq = seq; drawSpots(); };
  img.src = `/v1/matches/${S.match}/board.png?viewer=${S.seat}&seq=${seq}`;
  img.hidden = false;
}

// Clicks on the board: the server says which places of the picture name which legal actions
// (GET board.json: hexes, circles or boxes in the PNG's pixels); a click inside one plays its action
// if it names one, and narrows the list to its actions if it names several.
async function loadBoardMap() {
  const match = S.match, seq = S.seq;
  const response = await fetch(`/v1/matches/${match}/board.json?seq=${seq}`);
  if (!response.ok) return;
  const map = await response.json();
  if (S.match !== match || S.seq !== seq || map.seq !== seq) return;  // a later position is shown
  S.boardMap = map;
  const img = $("board");
  img.classList.toggle("clickable", !!map.clickable);
  img.dataset.mapSeq = seq;
  drawSpots();
}

// The clickable places highlighted over the picture (an SVG in the picture's own pixels), once the
// picture and the map of the same position are both there; nothing while it is not your turn.
const SVG = "http://www.w3.org/2000/svg";

function spotShapes(map) {
  const shapes = [];
  const r = map.hex_radius;
  for (const h of map.hexes) {
    const corners = [30, 90, 150, 210, 270, 330].map((deg) => {
      const t = deg * Math.PI / 180;
      return `${(h.x + r * Math.cos(t)).toFixed(2)},${(h.y + r * Math.sin(t)).toFixed(2)}`;
    });
    shapes.push(["polygon", { points: corners.join(" ") }, h.actions]);
  }
  for (const c of map.circles || []) shapes.push(["circle", { cx: c.x, cy: c.y, r: c.r }, c.actions]);
  for (const b of map.rects || []) {
    shapes.push(["rect", { x: b.x0, y: b.y0, width: b.x1 - b.x0, height: b.y1 - b.y0, rx: 4 }, b.actions]);
  }
  return shapes;
}

function drawSpots() {
  const img = $("board"), svg = $("spots");
  const map = S.boardMap;
  const ready = map && map.seq === S.seq && img.dataset.seq === String(S.seq) && img.naturalWidth > 0;
  svg.replaceChildren();
  svg.dataset.seq = ready ? S.seq : "";
  if (!ready) return;
  svg.setAttribute("viewBox", `0 0 ${img.naturalWidth} ${img.naturalHeight}`);
  for (const [tag, attrs, actions] of spotShapes(map)) {
    const el = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
    el.setAttribute("class", "spot");
    el.dataset.actions = actions.join(" ");
    svg.append(el);
  }
}

function placeAt(x, y) {
  // a hex map: inside a pointy-top hexagon of circumradius r around (h.x, h.y)
  const r = S.boardMap.hex_radius;
  const hex = S.boardMap.hexes.find((h) => {
    const dx = Math.abs(x - h.x), dy = Math.abs(y - h.y);
    return dx <= r * Math.sqrt(3) / 2 && dy <= r - dx / Math.sqrt(3);
  });
  if (hex) return { ...hex, label: `hex (${hex.row}, ${hex.col})` };
  // a table: the circle (a model, a spot) the click is deepest inside
  let best = null, depth = Infinity;
  for (const c of S.boardMap.circles || []) {
    const d = Math.hypot(x - c.x, y - c.y) / c.r;
    if (d <= 1 && d < depth) { best = c; depth = d; }
  }
  if (best) return { ...best, label: best.what };
  // card panels: the smallest box around the click (a damage space inside its ship card)
  let area = Infinity;
  for (const b of S.boardMap.rects || []) {
    const a = (b.x1 - b.x0) * (b.y1 - b.y0);
    if (x >= b.x0 && x <= b.x1 && y >= b.y0 && y <= b.y1 && a < area) { best = b; area = a; }
  }
  return best && { ...best, label: best.what };
}

function clickBoard(event) {
  if (document.body.dataset.phase !== "your-turn" || !S.boardMap || !S.boardMap.clickable) return;
  const img = $("board"), box = img.getBoundingClientRect();
  const x = (event.clientX - box.left) * img.naturalWidth / box.width;
  const y = (event.clientY - box.top) * img.naturalHeight / box.height;
  const place = placeAt(x, y);
  const ids = new Set(S.legal.map((a) => a.action));
  const actions = place ? place.actions.filter((a) => ids.has(a)) : [];
  if (actions.length === 1) { play(actions[0]); return; }
  S.picked = actions.length ? { label: place.label, actions: new Set(actions) } : null;
  if (!actions.length) status("no move of yours names that spot of the board: pick from the list");
  showLegal(S.legal);
}

function showLegal(legal) {
  const filter = $("filter").value.toLowerCase();
  const picked = S.picked;
  $("picked").hidden = !picked;
  if (picked) $("picked-text").textContent = `${picked.actions.size} moves at the ${picked.label}`;
  $("legal-count").textContent = legal.length ? `(${legal.length})` : "";
  const shown = legal.filter((a) => a.name.toLowerCase().includes(filter) && (!picked || picked.actions.has(a.action)));
  $("legal").replaceChildren(...shown.map((a) => {
    const li = document.createElement("li");
    const button = document.createElement("button");
    button.type = "button";
    button.className = "action";
    button.dataset.action = a.action;
    button.textContent = a.name;
    button.onclick = () => play(a.action);
    li.append(button);
    return li;
  }));
}

async function play(action) {
  for (const b of document.querySelectorAll("#legal button")) b.disabled = true;
  setPhase("sending");
  const reply = await request({ type: "move", match: S.match, seq: S.seq, state_hash: S.hash, action,
                                bot_moves: "one", legal: true });
  if (!reply.ok) {
    status(`${reply.error.code}: ${reply.error.message}`, true);
    showLegal(S.legal);
    setPhase("your-turn");
    return;
  }
  show(reply);
}

async function advance() {
  const reply = await request({ type: "advance", match: S.match, seq: S.seq, state_hash: S.hash,
                                bot_moves: "one", legal: true });
  if (!reply.ok) { status(`${reply.error.code}: ${reply.error.message}`, true); setPhase("idle"); return; }
  show(reply);
}

$("setup").addEventListener("submit", startGame);
$("game").addEventListener("change", updateSetup);
$("players").addEventListener("change", updateSetup);
$("solitaire").addEventListener("change", updateSetup);
$("filter").addEventListener("input", () => showLegal(S.legal));
$("board").addEventListener("click", clickBoard);
$("unpick").addEventListener("click", () => { S.picked = null; showLegal(S.legal); });
loadInfo().catch((err) => status(`cannot load /v1/info: ${err.message}`, true));
