// stringsh web: the supervisor's page. Plain DOM, no library; every text from the server is set as text, never as
// markup. The token arrives in the address's fragment (never sent to a server), is kept in this tab's session
// storage, and goes with every API call as `Authorization: Bearer TOKEN`.
"use strict";

// keep: the most rows the feed and the change list hold (a page asked for more by "Older" holds what it asked for).
// A tab left open for a day would otherwise hold every record written since, and slow the browser and the machine
// the agents share; what is dropped is an "Older" click away.
const state = { token: "", changes: new Map(), changeItems: new Map(), nextChanges: null, nextFeed: null,
  feed: [], feedIds: new Set(), feedRow: 0, feedHeight: 0, feedTop: 0, selected: null, view: "unified", detail: null, pending: null,
  keep: { feed: 100, changes: 100 }, wanted: { feed: 0, changes: 0 }, near: { "feed-box": true, changes: true },
  loading: null, queued: [], stale: false,
  draws: 3, refilled: 0, drawTimer: null, worker: null, clientPlaces: new Map(), firstPlace: 0,
  keepHidden: HIDDEN_BATCHES, keeping: false };
const $ = (id) => document.getElementById(id);

function takeToken() {
  const match = /(?:^#|&)token=([^&]+)/.exec(location.hash);
  if (match) {
    sessionStorage.setItem("stringsh-token", decodeURIComponent(match[1]));
    history.replaceState(null, "", location.pathname);
  }
  return sessionStorage.getItem("stringsh-token") || "";
}

async function api(path, options = {}) {
  const headers = { Authorization: `Bearer ${state.token}` };
  if (options.body !== undefined) headers["Content-Type"] = "application/json";
  const response = await fetch(`/api${path}`, { method: options.method || "GET", headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body), cache: "no-store" });
  const answer = await response.json();
  if (!response.ok) {
    const error = new Error(answer.error || `HTTP ${response.status}`);
    error.hint = answer.hint || "";
    error.code = answer.code || "";
    throw error;
  }
  return answer;
}

function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key.startsWith("data-")) node.setAttribute(key, value);
    else node[key] = value;
  }
  for (const child of children) node.append(child);
  return node;
}

const clock = (seconds) => seconds ? new Date(seconds * 1000).toLocaleTimeString() : "";
const day = (seconds) => new Date(seconds * 1000).toLocaleString();

function notice(text, kind = "") {
  const box = $("notice");
  box.textContent = text;
  box.className = kind;
  box.hidden = !text;
}

// -- header: health and the audit chain ----------------------------------------------------------------------------

function showHealth(health) {
  const mode = $("mode");
  const other = health.degraded;  // another process's degraded mode, while no change got through since
  mode.textContent = health.read_only ? `read-only: ${health.read_only}` :
    other ? `degraded: ${other.why} (${other.code}, process ${other.pid}, ${clock(other.time)})` : "writable";
  mode.className = `badge ${health.read_only || other ? "bad" : "ok"}`;
  const lock = $("lock");
  const held = health.lock && health.lock.held;
  const seen = held && health.lock.since ? Math.round(Date.now() / 1000 - health.lock.since) : 0;
  lock.textContent = !held ? "lock: free" : `lock: held by ${health.lock.pid ? `process ${health.lock.pid}` :
    "another process"}${seen >= 2 ? ` for ${seen} s` : ""}`;
  lock.title = held && health.lock.program ? health.lock.program : "";
  lock.className = `badge ${seen >= 5 ? "warn" : ""}`;
  const disk = $("disk");
  if (health.total_bytes) {
    const free = health.free_bytes / health.total_bytes;
    disk.textContent = `disk: ${(health.free_bytes / 2 ** 30).toFixed(1)} GiB free`;
    disk.className = `badge ${free < 0.05 ? "bad" : free < 0.15 ? "warn" : ""}`;
  }
}

async function verify() {
  const chain = $("chain");
  chain.textContent = "audit log: checking";
  chain.className = "badge";
  try {
    const result = await api("/verify");
    chain.title = `checked at ${new Date().toLocaleTimeString()}`;
    chain.textContent = result.ok ? `audit log ok: ${result.records} records` :
      `audit log BROKEN: ${result.file} line ${result.bad_line}: ${result.reason}`;
    chain.className = `badge ${result.ok ? "ok" : "bad"}`;
  } catch (error) {
    chain.textContent = `audit log: ${error.message}`;
    chain.className = "badge bad";
  }
}

// -- clients ---------------------------------------------------------------------------------------------------------

// The clients come about once a second while agents work, the most recently active first. The page keeps its rows in
// place while their clients work (those active now first, each where it was first shown, a newcomer on top; then the
// rest, the most recently active first): rows that swapped places every second could not be read, and each move laid
// the whole table out again. A row is built once, then only its changed cells are written, each cell's text in a box
// of fixed size (app.css) that the browser lays out alone.
function showClients(rows) {
  const body = $("clients").tBodies[0];
  const built = new Map([...body.rows].map((tr) => [tr.dataset.key, tr]));
  const first = state.firstPlace - rows.length;  // a newcomer's place: above every place given so far
  const placed = rows.map((row, k) => {
    const key = JSON.stringify([row.client, row.topic]);
    if (!state.clientPlaces.has(key)) state.clientPlaces.set(key, first + k);
    state.firstPlace = Math.min(state.firstPlace, state.clientPlaces.get(key));
    return { key, row, group: row.active ? 0 : 1, place: row.active ? state.clientPlaces.get(key) : k };
  }).sort((a, b) => a.group - b.group || a.place - b.place);
  let next = body.firstElementChild;
  for (const { key, row } of placed) {
    let tr = built.get(key);
    built.delete(key);
    if (!tr) tr = clientRow(row, key);
    fillClient(tr, row);
    if (tr === next) next = next.nextElementSibling;
    else body.insertBefore(tr, next);
  }
  for (const tr of built.values()) tr.remove();
}

const TEXT_CELLS = [0, 1, 2, 3, 4, 5, 7, 8];

function clientRow(row, key) {
  const undo = el("button", { type: "button", text: "Undo latest…" });
  undo.addEventListener("click", () => askUndo(tr.shown));
  const classes = ["", "", "", "", "num", "num", "", "num", "num"];
  const tr = el("tr", { "data-key": key, "data-client": row.client, "data-topic": row.topic },
    ...classes.map((name, k) => el("td", { class: name },
      ...TEXT_CELLS.includes(k) ? [el("span", { class: "v" })] : [])), el("td", {}, undo));
  return tr;
}

function fillClient(tr, row) {
  tr.shown = row;  // what its Undo button asks about
  const who = row.agent ? `${row.client} (${row.agent})` : row.client;
  const last = row.last_op ? `${clock(row.last_time)} ${row.last_op} → ${row.last_outcome}` : "";
  const texts = [who, row.dialect || "", row.topic, last, String(row.requests || 0), String(row.refusals || 0), null,
    String(row.changes), String(row.undo_depth)];
  texts.forEach((text, k) => {
    const box = tr.cells[k].firstElementChild;
    if (text === null || box.textContent === text) return;
    box.textContent = text;
    if (k === 0 || k === 3) box.title = text;  // a fixed column: what does not fit is cut, and shown on hover
  });
  const bars = row.activity || [];
  const drawn = chartBars(bars);
  const shape = JSON.stringify([bars.length, drawn]);
  if (tr.dataset.chart !== shape) {
    tr.dataset.chart = shape;
    tr.cells[6].replaceChildren(chart(bars, drawn));
  }
  labelChart(tr.cells[6].firstElementChild, chartLabel(bars));
  const active = row.active ? "active" : "";
  if (tr.className !== active) tr.className = active;
  tr.cells[9].firstElementChild.disabled = !row.undo_depth;
}

// A client's last hour: a bar per five minutes, its requests in grey and the refused ones in red on top. The bars
// are drawn in whole pixels, so most seconds' new counts move none of them: the chart is built again only when a
// bar's pixels change, and otherwise only its label (the totals) is written.
const CHART_WIDTH = 6, CHART_HEIGHT = 18;

function chartBars(bars) {
  const most = Math.max(1, ...bars.map(([requests]) => requests));
  const drawn = [];
  bars.forEach(([requests, refusals], k) => {
    for (const [count, below, kind] of [[requests - refusals, 0, "ok"], [refusals, requests - refusals, "refused"]]) {
      if (!count) continue;
      const tall = Math.max(1, Math.round((count / most) * CHART_HEIGHT));
      const base = Math.round((below / most) * CHART_HEIGHT);
      drawn.push([k * CHART_WIDTH, CHART_HEIGHT - base - tall, tall, kind]);
    }
  });
  return drawn;
}

function chartLabel(bars) {
  const total = bars.reduce((sum, [requests]) => sum + requests, 0);
  const refused = bars.reduce((sum, [, refusals]) => sum + refusals, 0);
  return `${total} request${total === 1 ? "" : "s"}, ${refused} refused, in the last hour`;
}

function chart(bars, drawn) {
  const svg = "http://www.w3.org/2000/svg";
  const picture = document.createElementNS(svg, "svg");
  picture.setAttribute("class", "chart");
  picture.setAttribute("width", String(bars.length * CHART_WIDTH));
  picture.setAttribute("height", String(CHART_HEIGHT));
  picture.setAttribute("role", "img");
  for (const [x, y, tall, kind] of drawn) {
    const bar = document.createElementNS(svg, "rect");
    bar.setAttribute("x", String(x));
    bar.setAttribute("y", String(y));
    bar.setAttribute("width", String(CHART_WIDTH - 1));
    bar.setAttribute("height", String(tall));
    bar.setAttribute("class", kind);
    picture.append(bar);
  }
  picture.append(document.createElementNS(svg, "title"));
  return picture;
}

function labelChart(picture, label) {
  if (picture.getAttribute("aria-label") === label) return;
  picture.setAttribute("aria-label", label);
  picture.lastElementChild.textContent = label;
}

// -- change sets -----------------------------------------------------------------------------------------------------

function changeItem(row) {
  const files = row.paths.slice(0, 3).join(", ") + (row.paths.length > 3 ? ` and ${row.paths.length - 3} more` : "");
  const item = el("li", { "data-id": String(row.id), tabIndex: 0 },
    el("span", { class: "id", text: `#${row.id}` }), el("span", { text: row.command }), el("br"),
    el("span", { class: "meta", text: `${clock(row.time)} · ${row.client} · ${row.dialect} · ${row.topic} · ${files}` }),
    " ", el("span", { class: "status", text: row.status }));
  item.setAttribute("aria-selected", String(state.selected === row.id));
  item.addEventListener("click", () => select(row.id));
  item.addEventListener("keydown", (event) => { if (event.key === "Enter") select(row.id); });
  return item;
}

// The change sets the page keeps are data (`state.changes`); the list is built from them only while it is near the
// window (drawNearViewOnly), and then only the rows that are new or changed: a list scrolled far out of sight costs
// a live change set a map entry, not a row built, inserted and dropped again.
function putChange(row) {
  const old = state.changes.get(row.id);
  state.changes.set(row.id, row);
  state.changeItems.delete(row.id);  // built again when next shown
  if (old && state.selected === row.id) select(row.id);
}

function showChanges() {
  if (!state.near.changes) return;
  const list = $("changes");
  const ids = [...state.changes.keys()].sort((a, b) => b - a);  // newest first
  const kept = new Set(ids);
  for (const item of [...list.children]) {
    const id = Number(item.dataset.id);
    if (!kept.has(id) || state.changeItems.get(id) !== item) item.remove();
  }
  let next = list.firstElementChild;
  for (const id of ids) {
    let item = state.changeItems.get(id);
    if (item === next) { next = next.nextElementSibling; continue; }
    if (!item) {
      item = changeItem(state.changes.get(id));
      state.changeItems.set(id, item);
    }
    list.insertBefore(item, next);
  }
}

// Drop the oldest change sets past what the page keeps; "Older" reads on from the oldest kept.
function trimChanges() {
  const most = Math.max(state.keep.changes, state.wanted.changes);
  if (state.changes.size <= most) return;
  const ids = [...state.changes.keys()].sort((a, b) => b - a);
  for (const id of ids.slice(most)) {
    state.changes.delete(id);
    state.changeItems.delete(id);
  }
  state.nextChanges = ids[most - 1];
  $("more-changes").hidden = false;
}

async function moreChanges(first = false) {
  const query = first || state.nextChanges === null ? "" : `&before=${state.nextChanges}`;
  const page = await api(`/changes?limit=50${query}`);
  if (first) {
    state.changes.clear();
    state.changeItems.clear();
  }
  page.rows.forEach(putChange);
  state.wanted.changes = state.changes.size;
  state.nextChanges = page.next;
  $("more-changes").hidden = page.next === null;
  showChanges();
}

async function select(id) {
  state.selected = id;
  for (const item of $("changes").children) item.setAttribute("aria-selected", String(Number(item.dataset.id) === id));
  try {
    state.detail = await api(`/changes/${id}`);
  } catch (error) {
    notice(`${error.message}\n${error.hint}`, "error");
    return;
  }
  $("detail-head").textContent = state.detail.head;
  const row = state.detail.row;
  $("revert").disabled = !row || row.state !== "done" || row.reverted_by !== null;
  renderDiff($("diff"), state.detail.diff);
  $("files").replaceChildren(...(row ? row.paths : []).map((path) => {
    const button = el("button", { type: "button", class: "file", text: `Who changed ${path}` });
    button.addEventListener("click", () => timeline(path));
    return button;
  }));
}

// A file's timeline: every change set the journal keeps that wrote it, newest first, and who made it.
async function timeline(path) {
  let answer;
  try {
    answer = await api(`/history?path=${encodeURIComponent(path)}`);
  } catch (error) {
    notice(`${error.message}\n${error.hint}`, "error");
    return;
  }
  $("timeline-head").textContent = `${path}: ${answer.rows.length} change set${answer.rows.length === 1 ? "" : "s"}`;
  $("timeline").replaceChildren(...answer.rows.map((row) => {
    const item = el("li", { "data-id": String(row.id), tabIndex: 0 },
      el("span", { class: "when", text: day(row.time) }), " ",
      el("span", { class: "id", text: `#${row.id}` }), " ", el("span", { text: `${row.client} (${row.dialect})` }), " ",
      el("span", { class: "muted", text: row.command }), " ", el("span", { class: "status", text: row.status }));
    item.addEventListener("click", () => select(row.id));
    item.addEventListener("keydown", (event) => { if (event.key === "Enter") select(row.id); });
    return item;
  }));
  $("timeline-panel").hidden = false;
}

// -- diffs: unified, or side by side, from the same masked unified text ------------------------------------------

function lineKind(line) {
  if (line.startsWith("--- ") || line.startsWith("+++ ")) return "meta";
  if (line.startsWith("@@")) return "hunk";
  if (line.startsWith("+")) return "add";
  if (line.startsWith("-")) return "del";
  if (line.startsWith(" ")) return "ctx";
  return "note";
}

function renderDiff(box, lines) {
  if (state.view === "split") return renderSplit(box, lines);
  box.replaceChildren(...lines.map((line) => el("div", { class: `line ${lineKind(line)}`, text: line || " " })));
}

function renderSplit(box, lines) {
  const rows = [];
  let dels = [], adds = [];
  const flush = () => {
    for (let k = 0; k < Math.max(dels.length, adds.length); k++) {
      rows.push([dels[k], "del", adds[k], "add"]);
    }
    dels = []; adds = [];
  };
  for (let k = 0; k < lines.length; k++) {
    const line = lines[k];
    const kind = lineKind(line);
    if (line.startsWith("--- ") && (lines[k + 1] || "").startsWith("+++ ")) {
      flush();
      rows.push([line, "meta", lines[++k], "meta"]);
      continue;
    }
    if (kind === "del") { dels.push(line.slice(1)); continue; }
    if (kind === "add") { adds.push(line.slice(1)); continue; }
    flush();
    if (kind === "ctx") rows.push([line.slice(1), "", line.slice(1), ""]);
    else rows.push([line, kind, "", kind]);
  }
  flush();
  const table = el("table", { class: "split" }, ...rows.map(([left, leftKind, right, rightKind]) => el("tr", {},
    el("td", { class: left === undefined ? "" : leftKind, text: left === undefined ? "" : left }),
    el("td", { class: right === undefined ? "" : rightKind, text: right === undefined ? "" : right }))));
  box.replaceChildren(table);
}

// The diff a revert or an undo writes: the change's own, the other way round.
function reversed(lines) {
  const out = [];
  for (let k = 0; k < lines.length; k++) {
    const line = lines[k];
    if (line.startsWith("--- ") && (lines[k + 1] || "").startsWith("+++ ")) {
      out.push(`--- ${lines[k + 1].slice(4)}`, `+++ ${line.slice(4)}`);
      k++;
    } else if (line.startsWith("@@")) out.push(line.replace(/^@@ -(\S+) \+(\S+) @@/, "@@ -$2 +$1 @@"));
    else if (line.startsWith("+")) out.push(`-${line.slice(1)}`);
    else if (line.startsWith("-")) out.push(`+${line.slice(1)}`);
    else out.push(line);
  }
  return out;
}

function setView(view) {
  state.view = view;
  $("view-unified").setAttribute("aria-pressed", String(view === "unified"));
  $("view-split").setAttribute("aria-pressed", String(view === "split"));
  if (state.detail) renderDiff($("diff"), state.detail.diff);
}

// -- writes: confirmed, each showing the diff it applies ---------------------------------------------------------

function confirmWith(head, text, diff, action) {
  $("confirm-head").textContent = head;
  $("confirm-text").textContent = text;
  renderDiff($("confirm-diff"), reversed(diff));
  state.pending = action;
  $("confirm").showModal();
}

function askRevert() {
  const detail = state.detail;
  if (!detail) return;
  confirmWith(`Revert change ${detail.id}?`, `${detail.head}\nThis writes the diff below (the change, taken back). ` +
    "If a file changed since, the revert is refused with a conflict, never forced.", detail.diff,
  () => api("/revert", { method: "POST", body: { change: detail.id } }));
}

async function askUndo(row) {
  let preview;
  try {
    preview = await api(`/undo-preview?client=${encodeURIComponent(row.client)}&topic=${encodeURIComponent(row.topic)}`);
  } catch (error) {
    notice(`${error.message}\n${error.hint}`, "error");
    return;
  }
  confirmWith(`Undo ${row.client}'s latest change (${preview.id})?`, `${preview.head}\nThis writes the diff below, ` +
    `as /undo would for ${row.client} in topic ${row.topic}.`, preview.diff,
  () => api("/undo", { method: "POST", body: { client: row.client, topic: row.topic, change: preview.id } }));
}

async function confirmed() {
  const action = state.pending;
  state.pending = null;
  $("confirm").close();
  if (!action) return;
  try {
    const answer = await action();
    notice(answer.message);
  } catch (error) {
    notice(`${error.message}\n${error.hint}`, error.code === "CONFLICT" ? "conflict" : "error");
  }
  if (state.selected !== null) select(state.selected);
}

// -- the request feed ----------------------------------------------------------------------------------------------

function filter() {
  return { client: $("filter-client").value.trim(), path: $("filter-path").value.trim(),
    outcome: $("filter-outcome").value };
}

function accepts(record, wanted) {
  if (wanted.client && !record.client.includes(wanted.client) && !(record.agent || "").includes(wanted.client)) {
    return false;
  }
  if (wanted.path && !record.paths.some((path) => path.includes(wanted.path))) return false;
  if (!wanted.outcome) return true;
  if (wanted.outcome === "refused") return record.kind !== "ok";
  return record.kind === wanted.outcome;
}

function feedRow(record) {
  const request = record.command ? `${record.op} · ${record.command}` : record.op;
  const who = record.agent ? `${record.client} (${record.agent})` : record.client;
  const paths = record.paths.join(", ");
  const outcome = record.outcome + (record.changes.length ? ` (change ${record.changes.join(", ")})` : "");
  return el("tr", { class: record.kind === "ok" ? "" : record.kind, "data-id": record.id, title: day(record.time) },
    el("td", { text: clock(record.time) }), el("td", { text: who, title: who }), el("td", { text: record.dialect }),
    el("td", { text: request, title: request }), el("td", { class: "paths", text: paths, title: paths }),
    el("td", { text: outcome, title: outcome }), el("td", { class: "num", text: record.ms.toFixed(1) }));
}

// The feed is windowed: the page keeps its records (newest first) in `state.feed`, and only the rows in the feed's
// box, and a few beyond, are in the document. Each row is one line high, so where a row goes is known without
// laying the page out; a draw under a steady stream of requests touches a screenful of rows, not every row kept.
const FEED_SPARE = 4;  // rows built beyond each edge of the box, so a scroll shows no gap before the next draw

function feedBox() {
  const box = $("feed-box");
  if (!state.feedRow) {  // measured once: the rows' height and the box's, then followed
    state.feedRow = parseFloat(getComputedStyle(box).getPropertyValue("--row-height")) || 26;
    state.feedHeight = box.clientHeight;
    state.feedTop = box.scrollTop;
    new ResizeObserver(() => { state.feedHeight = box.clientHeight; showFeed(); }).observe(box);
    box.addEventListener("scroll", () => { state.feedTop = box.scrollTop; showFeed(); }, { passive: true });
  }
  return box;
}

function showFeed() {
  if (!state.near["feed-box"]) return;
  feedBox();
  const row = state.feedRow;
  const first = Math.max(0, Math.floor(state.feedTop / row) - FEED_SPARE);
  const last = Math.min(state.feed.length, Math.ceil((state.feedTop + state.feedHeight) / row) + FEED_SPARE);
  const tall = `${state.feed.length * row}px`;
  if ($("feed-sizer").style.height !== tall) {  // the box grows with its rows up to its most (app.css), then scrolls
    $("feed-sizer").style.height = tall;
    $("feed-box").style.height = tall;
  }
  $("feed").style.transform = `translateY(${first * row}px)`;
  const body = $("feed").tBodies[0];
  const built = new Map([...body.rows].map((tr) => [tr.dataset.id, tr]));
  let next = body.firstElementChild;
  for (const record of state.feed.slice(first, last)) {
    const tr = built.get(record.id);
    built.delete(record.id);
    if (tr === next) { next = next.nextElementSibling; continue; }
    body.insertBefore(tr || feedRow(record), next);
  }
  for (const tr of built.values()) tr.remove();
}

// Drop the oldest records past what the page keeps; "Older" reads on from the oldest kept (a record's id is its place).
function trimFeed() {
  const keep = Math.max(state.keep.feed, state.wanted.feed);
  if (state.feed.length <= keep) return;
  for (const record of state.feed.splice(keep)) state.feedIds.delete(record.id);
  state.nextFeed = state.feed[state.feed.length - 1].id;
  $("more-feed").hidden = false;
}

async function moreFeed(first = false) {
  const wanted = filter();
  const query = new URLSearchParams({ limit: "100", ...wanted });
  if (!first && state.nextFeed) query.set("before", state.nextFeed);
  const page = await api(`/audit?${query}`);
  if (first) {
    state.feed = [];
    state.feedIds.clear();
  }
  const fresh = page.records.filter((record) => !state.feedIds.has(record.id));
  fresh.forEach((record) => state.feedIds.add(record.id));
  state.feed.push(...fresh);
  state.wanted.feed = state.feed.length;
  state.nextFeed = page.next;
  $("more-feed").hidden = !page.next;
  showFeed();
  if (page.note) notice(page.note);
}

// -- live: the event stream, read with fetch so the token goes in a header ------------------------------------------

function applyBatch(batch) {
  if (batch.type === "resync") { reload(); return; }
  if (batch.type === "problem") { notice(batch.text, "error"); return; }
  if (batch.type !== "batch") return;
  const wanted = filter();
  const fresh = batch.records.filter((record) => accepts(record, wanted) && !state.feedIds.has(record.id));
  if (fresh.length) {
    fresh.forEach((record) => state.feedIds.add(record.id));
    state.feed.unshift(...fresh.reverse());
    trimFeed();
    showFeed();
  }
  batch.changes.forEach(putChange);
  trimChanges();
  showChanges();
  if (batch.clients) showClients(batch.clients);  // sent at most once a second, and when they change
  if (batch.health) showHealth(batch.health);  // sent when it changes
}

// The live feed: one stream for every tab of the page, held by a shared worker (stream.js), or this tab's own where
// the browser has none. Each time the stream is (re)opened the tab reads the page afresh, and the batches that come
// meanwhile wait until it has: a record is never missed, and one in both is shown once.
function follow() {
  const tell = (message) => streamed(message);
  document.addEventListener("visibilitychange", shown);
  if (typeof SharedWorker === "undefined") {
    followStream(() => state.token, tell);
    return;
  }
  const worker = new SharedWorker("/static/stream.js", { name: "stringsh-web-stream" });
  const join = () => worker.port.postMessage({ type: "join", token: state.token, hidden: document.hidden,
    keep: state.keepHidden });
  worker.port.onmessage = ({ data }) => tell(data);
  worker.port.start();
  join();
  state.worker = worker.port;
  addEventListener("pagehide", () => worker.port.postMessage({ type: "leave" }));
  addEventListener("pageshow", (event) => {  // back from the browser's page cache: join again, read afresh
    if (event.persisted) join();
  });
}

function streamed(message) {
  const live = $("live");
  if (message.type === "live") {
    live.textContent = "live";
    live.className = "badge ok";
    live.title = "";
    reload();
  } else if (message.type === "reconnecting") {
    live.textContent = "reconnecting";
    live.className = "badge warn";
    live.title = message.title;
  } else if (message.type === "keeping") {  // the shared worker keeps this tab's batches until it is shown
    state.keeping = true;
  } else if (message.type === "missed") {  // the batches the shared worker kept while this tab was not shown
    state.queued.push(...message.data);
    if (!state.loading) drawSoon();
  } else if (message.type === "stale") {  // more than it keeps: read the page afresh (what waits here is older)
    state.queued.length = 0;
    reload();
  } else if (message.type === "batch") {
    // a tab not shown builds nothing: its batches wait (a few hundred at most, then it reads the page afresh when
    // shown), so ten open tabs cost what the one in front does; with the shared worker they wait there (stream.js)
    state.queued.push(message.data);
    if (state.queued.length > state.keepHidden && !state.loading && document.hidden) {
      state.queued.length = 0;
      state.stale = true;
    } else if (!state.loading && !document.hidden) {
      drawSoon();
    }
  }
}

// A tab in front draws what came at once while batches are few, and at most every DRAW_GAP ms under a steady stream
// of them (a bucket of DRAW_BURST draws, one more each DRAW_GAP ms). Each draw lays out and paints the page again:
// the main cost of a tab in front to the machine its agents share, about the same whatever the draw holds. The
// server sends a batch at most every 200 ms under a steady stream (feed.py), so each is drawn as it comes: a record
// is on screen within 300 ms of being written.
const DRAW_GAP = 150;
const DRAW_BURST = 3;

function drawSoon() {
  if (state.drawTimer !== null) return;
  refill();
  state.drawTimer = setTimeout(draw, state.draws >= 1 ? 0 : (1 - state.draws) * DRAW_GAP);
}

function refill() {
  const now = performance.now();
  state.draws = Math.min(DRAW_BURST, state.draws + (now - state.refilled) / DRAW_GAP);
  state.refilled = now;
}

function draw() {
  clearTimeout(state.drawTimer);
  state.drawTimer = null;
  if (state.loading || document.hidden) return;  // drawn when the reading ends, or when the tab is shown
  refill();
  state.draws = Math.max(0, state.draws - 1);
  for (const data of state.queued.splice(0)) applyBatch(JSON.parse(data));
}

function shown() {
  if (state.worker) state.worker.postMessage({ type: document.hidden ? "hidden" : "shown", keep: state.keepHidden });
  if (document.hidden) return;
  state.keeping = false;
  if (state.stale) {
    state.stale = false;
    reload();
  } else {
    draw();
  }
}

async function reload() {
  const loading = (state.loading || Promise.resolve()).then(load).catch((error) =>
    notice(`${error.message}\n${error.hint || ""}`, "error"));
  state.loading = loading;
  await loading;
  if (state.loading !== loading) return;  // a later reload is under way: it applies what waits
  state.loading = null;
  shown();
}

// -- start -----------------------------------------------------------------------------------------------------------

async function load() {
  const overview = await api("/overview");
  $("workspace").textContent = overview.workspace;
  document.title = `stringsh web · ${overview.workspace}`;
  showHealth(overview.health);
  showClients(overview.clients);
  await moreChanges(true);
  await moreFeed(true);
}

// The change sets' list and the feed's box are built and drawn only near what the window shows. Farther than NEAR_VIEW
// from it a box is "offscreen": the browser does not lay it out or paint it (app.css: content-visibility hidden), and
// the page does not build its rows: what comes is kept as data (`state.changes`, `state.feed`) and built when the box
// comes near. With 30 agents the clients' table fills a window, and building rows below it several times a second
// for nobody was most of a tab's cost to the machine the agents share.
const NEAR_VIEW = "200px 0px";

function drawNearViewOnly(shows) {
  const near = new IntersectionObserver((entries) => {
    for (const entry of entries) {
      entry.target.classList.toggle("offscreen", !entry.isIntersecting);
      state.near[entry.target.id] = entry.isIntersecting;
      if (entry.isIntersecting) shows[entry.target.id]();
    }
  }, { rootMargin: NEAR_VIEW });
  Object.keys(shows).forEach((id) => near.observe($(id)));
}

async function start() {
  state.token = takeToken();
  drawNearViewOnly({ changes: showChanges, "feed-box": showFeed });
  $("view-unified").addEventListener("click", () => setView("unified"));
  $("view-split").addEventListener("click", () => setView("split"));
  $("revert").addEventListener("click", askRevert);
  $("confirm-ok").addEventListener("click", confirmed);
  $("confirm-cancel").addEventListener("click", () => { state.pending = null; $("confirm").close(); });
  $("reverify").addEventListener("click", verify);
  $("more-changes").addEventListener("click", () => moreChanges());
  $("more-feed").addEventListener("click", () => moreFeed());
  $("filter").addEventListener("input", () => moreFeed(true));
  $("filter").addEventListener("submit", (event) => event.preventDefault());
  if (!state.token) {
    notice("Open the address stringsh web printed: it carries the token this page needs.", "error");
    return;
  }
  try {
    await load();
  } catch (error) {
    notice(`${error.message}\n${error.hint || ""}`, "error");
    return;
  }
  verify();
  follow();
}

document.addEventListener("DOMContentLoaded", start);
