// lean-ctx dashboard: plain JS, no framework, nothing loaded from elsewhere.
//
// The page loads the status and gain once, then follows /api/events (server-sent
// events: `status` every second, `gain` when it changed), so it never reloads. Rows
// are kept by key and only their changed cells rewritten, so a button does not move
// under the pointer. Every value goes in as text (textContent), never as HTML: roots,
// paths and messages come from the user's disk.
'use strict';

const PAGES = ['overview', 'projects', 'servers', 'ides', 'gain'];
const SVG = 'http://www.w3.org/2000/svg';

// ---- helpers ---------------------------------------------------------------

// The session is an HttpOnly cookie the browser sends by itself (same origin);
// no script here ever sees a credential.
function api(path, options = {}) {
  return fetch(path, Object.assign({ credentials: 'same-origin' }, options));
}

function $(id) {
  return document.getElementById(id);
}

function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (k === 'class') node.className = v;
    else if (k === 'text') node.textContent = v;
    else if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v);
  }
  for (const child of children) node.append(child);
  return node;
}

function svg(tag, attrs = {}, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  return node;
}

function bytes(n) {
  if (n === null || n === undefined) return '–';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) { n /= 1024; i++; }
  return (i === 0 ? n : n.toFixed(1)) + ' ' + units[i];
}

function duration(ms) {
  let s = Math.floor(ms / 1000);
  const d = Math.floor(s / 86400); s %= 86400;
  const h = Math.floor(s / 3600); s %= 3600;
  const m = Math.floor(s / 60); s %= 60;
  if (d) return `${d}d ${h}h`;
  if (h) return `${h}h ${m}m`;
  if (m) return `${m}m ${s}s`;
  return `${s}s`;
}

function ago(unixMs) {
  if (!unixMs) return '–';
  const ms = Date.now() - unixMs;
  return ms < 1000 ? 'just now' : duration(ms) + ' ago';
}

function clock(unixMs) {
  return new Date(unixMs).toLocaleTimeString([], { hour12: false });
}

function latency(us) {
  return us < 1000 ? `${us} µs` : `${(us / 1000).toFixed(1)} ms`;
}

function num(n) {
  return (n ?? 0).toLocaleString('en-US');
}

function rate(hits, misses) {
  const all = hits + misses;
  return all ? `${((100 * hits) / all).toFixed(1)}%` : '–';
}

// A cell is a string (text) or a Node; `cls` optional.
function cell(value, cls) {
  return { value, cls };
}

// Keeps one <tr> per key in `tbody`, in `items` order; rewrites a cell only when its
// text changed; `extra(tr, item)` adds cells built once per row (buttons).
function syncRows(tbody, items, key, cells, extra) {
  const old = new Map([...tbody.rows].map((tr) => [tr.dataset.key, tr]));
  const seen = new Set();
  let previous = null;
  for (const item of items) {
    const k = key(item);
    seen.add(k);
    let tr = old.get(k);
    const values = cells(item);
    if (!tr) {
      tr = el('tr');
      tr.dataset.key = k;
      for (let i = 0; i < values.length; i++) tr.append(el('td'));
      if (extra) extra(tr, item);
    }
    values.forEach((c, i) => {
      const td = tr.cells[i];
      const cls = c.cls || '';
      if (td.className !== cls) td.className = cls;
      if (c.value instanceof Node) {
        td.replaceChildren(c.value);
      } else if (td.textContent !== String(c.value)) {
        td.textContent = String(c.value);
      }
    });
    const next = previous ? previous.nextSibling : tbody.firstChild;
    if (next !== tr) tbody.insertBefore(tr, next);
    previous = tr;
  }
  for (const [k, tr] of old) if (!seen.has(k)) tr.remove();
}

function showEmpty(id, empty) {
  $(id).hidden = !empty;
}

// ---- pages -----------------------------------------------------------------

function route() {
  const page = PAGES.includes(location.hash.slice(1)) ? location.hash.slice(1) : 'overview';
  for (const p of PAGES) $('page-' + p).hidden = p !== page;
  for (const a of document.querySelectorAll('nav a')) a.classList.toggle('active', a.dataset.page === page);
  document.body.dataset.page = page;
}

let lastSeq = null;

function renderStatus(st) {
  $('version').textContent = st.version;
  $('uptime').textContent = duration(st.uptime_ms);
  $('rss').textContent = bytes(st.rss_bytes);
  $('rate').textContent = st.calls_per_second.toFixed(1);
  $('served').textContent = num(st.calls_served);
  $('clients').textContent = num(st.connected_clients);
  $('daemon-meta').textContent =
    `pid ${st.pid} · build ${st.build} · started by ${st.started_by} · socket ${st.socket}` +
    (st.idle_exit_after_ms ? ` · exits after ${duration(st.idle_exit_after_ms)} without clients` : '');

  const indexCell = (p) => {
    const ix = p.index;
    if (!ix) return cell('not indexed');
    if (ix.state === 'indexing') {
      return cell(el('span', {}, el('progress', { value: ix.files_indexed, max: Math.max(ix.files_total, 1) }),
        ` ${ix.files_indexed}/${ix.files_total}`));
    }
    return cell(`ready · ${num(ix.files_indexed)} files`, 'state ready');
  };
  syncRows($('overview-projects').tBodies[0], st.projects, (p) => p.root, (p) => [
    cell(p.root, 'path root'),
    cell(p.branch || '–'),
    indexCell(p),
    cell(p.backings.map((b) => `${b.name} (${b.state})`).join(', ') || 'headless'),
    cell(num(p.calls), 'num'),
    cell(ago(p.last_used_unix_ms)),
  ]);
  showEmpty('overview-projects-empty', st.projects.length === 0);

  const tbody = $('recent-calls').tBodies[0];
  syncRows(tbody, st.recent_calls, (c) => String(c.seq), (c) => [
    cell(clock(c.at_unix_ms)),
    cell(c.action, 'action'),
    cell(c.root || '–', 'path'),
    cell(c.backing || '–'),
    cell(latency(c.latency_us), 'num'),
    cell(c.error || '', c.error ? 'error' : ''),
  ], (tr, c) => {
    tr.dataset.action = c.action;
    tr.dataset.root = c.root || '';
    if (lastSeq !== null && c.seq > lastSeq) tr.classList.add('fresh');
  });
  if (st.recent_calls.length) lastSeq = Math.max(lastSeq ?? 0, st.recent_calls[0].seq);

  syncRows($('projects-table').tBodies[0], st.projects, (p) => p.root, (p) => {
    const ix = p.index;
    return [
      cell(p.root + (p.branch ? ` (${p.branch})` : ''), 'path root'),
      cell(p.worktree_group, 'path'),
      ix ? (ix.state === 'indexing'
        ? cell(el('span', {}, el('progress', { value: ix.files_indexed, max: Math.max(ix.files_total, 1) }),
          ` indexing ${ix.files_indexed}/${ix.files_total}`))
        : cell(`ready (${ix.last_full_index_ms} ms)`, 'state ready')) : cell('not indexed'),
      cell(ix ? `${num(ix.files_indexed)} / ${num(ix.files_total)}` : '–', 'num'),
      cell(ix ? num(ix.symbols) : '–', 'num'),
      cell(ix ? bytes(ix.symbol_bytes) : '–', 'num'),
      cell(ix ? rate(ix.hash_cache.hits, ix.hash_cache.misses) : '–', 'num'),
      cell(ix ? rate(ix.symbol_cache.hits, ix.symbol_cache.misses) : '–', 'num'),
      cell(num(p.calls), 'num'),
    ];
  });
  showEmpty('projects-empty', st.projects.length === 0);
  syncRows($('caches-table').tBodies[0], st.caches, (c) => c.name, (c) => [
    cell(c.name),
    cell(num(c.entries), 'num'),
    cell(bytes(c.bytes), 'num'),
    cell(c.capacity_bytes ? bytes(c.capacity_bytes) : 'unbounded', 'num'),
    cell(num(c.hits), 'num'),
    cell(num(c.misses), 'num'),
    cell(rate(c.hits, c.misses), 'num'),
  ]);

  renderServers(st.language_servers);

  syncRows($('ides-table').tBodies[0], st.ides, (i) => `${i.project_root}|${i.port}`, (i) => {
    const reach = i.ignored ? [`no: ${i.ignored}`, 'state no']
      : i.reachable === null ? ['not checked yet', 'state unknown'] : i.reachable ? ['yes', 'state yes'] : ['no', 'state no'];
    return [
      cell(i.project_root, 'path'),
      cell(i.ide_version),
      cell(i.pid, 'num'),
      cell(i.port, 'num'),
      cell(reach[0], reach[1]),
      cell(i.last_check_unix_ms ? ago(i.last_check_unix_ms) : '–'),
    ];
  });
  showEmpty('ides-empty', st.ides.length === 0);
}

function renderServers(servers) {
  syncRows($('servers-table').tBodies[0], servers, (s) => `${s.root}|${s.language}|${s.command.join(' ')}`, (s) => [
    cell(s.root, 'path'),
    cell(s.language),
    cell(s.server),
    cell(s.pid ?? '–', 'num'),
    cell(s.state + (s.progress && s.progress.message ? ` (${s.progress.message})` : ''), 'state ' + s.state),
    cell(bytes(s.rss_bytes), 'num'),
    cell(s.open_documents, 'num'),
    cell(ago(s.last_used_unix_ms)),
    cell(num(s.calls_served), 'num'),
  ], (tr, s) => {
    tr.dataset.language = s.language;
    tr.dataset.root = s.root;
    tr.append(el('td', {},
      el('button', { class: 'restart', text: 'Restart', onclick: (e) => serverOp(e.target, 'restart', s) }),
      el('button', { class: 'evict', text: 'Evict', onclick: (e) => serverOp(e.target, 'evict', s) })));
  });
  showEmpty('servers-empty', servers.length === 0);
}

async function serverOp(button, op, s) {
  button.disabled = true;
  const message = $('servers-message');
  try {
    const resp = await api('/api/servers/' + op, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ root: s.root, language: s.language }),
    });
    const body = await resp.json();
    if (!resp.ok) throw new Error(body.error ? `${body.error.code}: ${body.error.message}` : resp.statusText);
    message.textContent = `${op}: ${body.affected} server(s) at ${clock(Date.now())}`;
    renderServers(body.servers);
  } catch (e) {
    message.textContent = `${op} failed: ${e.message}`;
  } finally {
    button.disabled = false;
  }
}

function renderGain({ report, daily }) {
  const s = report.summary;
  $('gain-saved').textContent = num(s.tokens_saved);
  $('gain-rate').textContent = `${s.gain_rate_pct}%`;
  $('gain-usd').textContent = `$${s.avoided_usd.toFixed(s.avoided_usd < 1 ? 4 : 2)}`;
  $('gain-score').textContent = s.score.total;
  $('gain-commands').textContent = num(s.total_commands);
  $('gain-meta').textContent =
    `${num(s.total_input_tokens)} read-equivalent tokens, ${num(s.total_output_tokens)} returned · ` +
    `valued at ${s.model.model_key} ($${s.model.usd_per_mtok}/Mtok) · score: compression ${s.score.compression}, ` +
    `cost efficiency ${s.score.cost_efficiency}, quality ${s.score.quality}, consistency ${s.score.consistency}, trend ${s.score.trend}`;
  drawChart($('gain-chart'), daily.slice(-30));
  syncRows($('tasks-table').tBodies[0], report.tasks, (t) => t.category, (t) => [
    cell(t.category),
    cell(num(t.commands), 'num'),
    cell(num(t.tokens_saved), 'num'),
    cell(t.tool_spend_usd.toFixed(4), 'num'),
  ]);
  const max = Math.max(1, ...report.heatmap.map((f) => f.tokens_saved));
  $('heatmap').replaceChildren(...report.heatmap.map((f) => {
    const tile = el('div', { class: 'tile', title: f.path },
      el('div', { class: 'file', text: f.path }),
      el('div', { class: 'nums', text: `${f.access_count}× · ${num(f.tokens_saved)} saved · ${f.compression_pct}%` }));
    // Hotter (more saved) is a deeper orange; CSSOM, which the CSP allows.
    const heat = f.tokens_saved / max;
    tile.style.backgroundColor = `hsl(${40 - 30 * heat}, 95%, ${92 - 40 * heat}%)`;
    return tile;
  }));
  showEmpty('heatmap-empty', report.heatmap.length === 0);
}

// Bars: tokens saved per day; line: the running total (own scale).
function drawChart(box, days) {
  const W = 900, H = 220, L = 56, R = 56, T = 12, B = 28;
  const root = svg('svg', { viewBox: `0 0 ${W} ${H}`, preserveAspectRatio: 'none', role: 'img', 'aria-label': 'tokens saved per day' });
  root.append(svg('line', { class: 'axis', x1: L, y1: H - B, x2: W - R, y2: H - B }));
  if (days.length === 0) {
    root.append(svg('text', { x: W / 2, y: H / 2, 'text-anchor': 'middle' }, 'no data yet'));
    box.replaceChildren(root);
    return;
  }
  const max = Math.max(1, ...days.map((d) => d.tokens_saved));
  let total = 0;
  const cumulative = days.map((d) => (total += d.tokens_saved));
  const slot = (W - L - R) / days.length;
  const y = (v, top) => H - B - ((H - T - B) * v) / top;
  days.forEach((d, i) => {
    const width = Math.min(slot * 0.7, 48);
    const x = L + (i + 0.5) * slot - width / 2;
    const bar = svg('rect', { class: 'bar', x, y: y(d.tokens_saved, max), width, height: H - B - y(d.tokens_saved, max) });
    bar.append(svg('title', {}, `${d.day}: ${d.tokens_saved} tokens saved in ${d.commands} calls`));
    root.append(bar);
    if (days.length <= 10 || i % Math.ceil(days.length / 10) === 0) {
      root.append(svg('text', { x: L + (i + 0.5) * slot, y: H - 10, 'text-anchor': 'middle' }, d.day.slice(5)));
    }
  });
  const points = cumulative.map((v, i) => `${L + (i + 0.5) * slot},${y(v, Math.max(1, total))}`).join(' ');
  root.append(svg('polyline', { class: 'line', points }));
  root.append(svg('text', { x: L - 6, y: T + 8, 'text-anchor': 'end' }, num(max)));
  root.append(svg('text', { x: L - 6, y: H - B, 'text-anchor': 'end' }, '0'));
  root.append(svg('text', { x: W - R + 6, y: T + 8 }, `Σ ${num(total)}`));
  box.replaceChildren(root);
}

// ---- live updates ------------------------------------------------------------

async function load() {
  const [status, report, daily] = await Promise.all(
    ['/api/status', '/api/gain', '/api/gain/daily'].map((p) => api(p).then((r) => r.json())));
  renderStatus(status);
  renderGain({ report, daily });
}

function follow() {
  const live = $('live');
  const events = new EventSource('/api/events');
  events.addEventListener('open', () => { live.textContent = 'live'; live.className = 'pill live'; });
  events.addEventListener('error', () => { live.textContent = 'reconnecting…'; live.className = 'pill down'; });
  events.addEventListener('status', (e) => renderStatus(JSON.parse(e.data)));
  events.addEventListener('gain', (e) => renderGain(JSON.parse(e.data)));
}

window.addEventListener('hashchange', route);
route();
load().catch((e) => { $('live').textContent = 'error: ' + e.message; });
follow();
