// Sessions: a kernel kept across cells, as in a notebook. Outputs are shown as text, as images (raster only: the
// server's OutputSanitizer lets no SVG out), or as the HTML that sanitizer wrote; the notebook downloads as .ipynb.
import { api, download } from './api.js';
import { el, show, badge, formatMs, sanitizedHtml, problem } from './dom.js';

const IMAGES = ['image/png', 'image/jpeg', 'image/gif'];
// the kernel colours tracebacks for a terminal; the page shows plain text
const ANSI = /\u001b\[[0-9;]*[A-Za-z]/g;
let current = null;

function rich(data, label) {
  for (const type of IMAGES) {
    if (typeof data[type] === 'string') {
      // strict base64 only (the sanitizer checked the bytes' signature): nothing else goes into a data: URL
      const b64 = data[type].replace(/\s/g, '');
      if (/^[A-Za-z0-9+/]+={0,2}$/.test(b64)) {
        return el('img', { src: 'data:' + type + ';base64,' + b64, alt: data['text/plain'] ? String(data['text/plain']) : label });
      }
    }
  }
  if (typeof data['text/html'] === 'string') return sanitizedHtml(data['text/html']);
  if (data['text/plain'] !== undefined) return el('pre', { class: 'stream' }, String(data['text/plain']));
  if (data['application/json'] !== undefined) return el('pre', { class: 'stream' }, JSON.stringify(data['application/json'], null, 2));
  return el('p', { class: 'empty' }, 'an output with no type this page shows');
}

function outputView(o, n) {
  if (o.type === 'stream') return el('pre', { class: 'stream stream-' + o.name, 'aria-label': o.name }, o.text);
  if (o.type === 'error') {
    return el('pre', { class: 'stream stream-stderr cell-error' },
      (o.traceback && o.traceback.length ? o.traceback.join('\n') : o.name + ': ' + o.value).replace(ANSI, ''));
  }
  return el('div', { class: 'rich' }, rich(o.data || {}, 'output of cell ' + n));
}

function cellView(session, cell) {
  const input = el('textarea', { id: 'cell-' + cell.n, class: 'code-input', rows: '5', spellcheck: 'false' }, cell.code);
  const button = el('button', { type: 'submit', class: 'run-cell' }, 'Run cell ' + cell.n);
  const out = el('div', { class: 'cell-outputs', 'aria-live': 'polite' });
  const form = el('form', { class: 'cell', 'data-cell': cell.n },
    el('label', { for: 'cell-' + cell.n }, 'Cell ' + cell.n), input, button, out);
  const render = () => {
    if (!cell.result) return;
    const r = cell.result;
    show(out, el('p', { class: 'cell-status' }, badge(r.status), ' [' + r.executionCount + '] in ' + formatMs(r.durationMs),
      r.message ? ' — ' + r.message : '', r.stateLost ? ' (the kernel restarted: earlier state is gone)' : ''),
    r.outputs.map((o) => outputView(o, cell.n)));
  };
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    cell.code = input.value;
    button.disabled = true;
    show(out, el('p', {}, 'Running…'));
    try {
      const r = await api('/v1/sessions/' + encodeURIComponent(session.id) + '/cells', { method: 'POST', body: { code: cell.code } });
      cell.result = r.body;
      render();
    } catch (err) {
      show(out, problem(err));
    } finally {
      button.disabled = false;
    }
  });
  render();
  return form;
}

export function sessionsPage() {
  const status = el('div', { id: 'session-status', 'aria-live': 'polite' });
  const area = el('div', { id: 'session-area' });
  const node = el('section', { class: 'page', 'aria-labelledby': 'sessions-title' },
    el('h1', { id: 'sessions-title' }, 'Session'), status, area);

  function draw() {
    if (!current) {
      const open = el('button', { type: 'button', id: 'open-session' }, 'Open a session');
      open.addEventListener('click', async () => {
        open.disabled = true;
        show(status, el('p', {}, 'Starting a kernel…'));
        try {
          const r = await api('/v1/sessions', { method: 'POST', body: {} });
          current = { id: r.body.id, cellTimeoutMs: r.body.cellTimeoutMs, cells: [{ n: 1, code: '' }] };
          show(status);
          draw();
        } catch (err) {
          open.disabled = false;
          show(status, problem(err));
        }
      });
      show(area, el('p', {}, 'A session keeps a Python kernel across cells, in a sandbox of its own.'), open);
      return;
    }
    const session = current;
    const cells = el('div', { class: 'cells' }, session.cells.map((c) => cellView(session, c)));
    const add = el('button', { type: 'button', id: 'add-cell' }, 'Add a cell');
    add.addEventListener('click', () => {
      const cell = { n: session.cells.length + 1, code: '' };
      session.cells.push(cell);
      const view = cellView(session, cell);
      cells.append(view);
      view.querySelector('textarea').focus();
    });
    const notebook = el('button', { type: 'button', id: 'download-notebook' }, 'Download .ipynb');
    notebook.addEventListener('click', () => download('/v1/sessions/' + encodeURIComponent(session.id) + '/notebook',
      'session-' + session.id + '.ipynb').catch((err) => show(status, problem(err))));
    const close = el('button', { type: 'button', id: 'close-session', class: 'danger' }, 'Close the session');
    close.addEventListener('click', async () => {
      try {
        await api('/v1/sessions/' + encodeURIComponent(session.id), { method: 'DELETE' });
      } catch (err) {
        show(status, problem(err));
      }
      current = null;
      draw();
    });
    show(area, el('p', {}, 'Session ', el('code', {}, session.id), ' — each cell may run ' + formatMs(session.cellTimeoutMs) + '.'),
      cells, el('div', { class: 'toolbar' }, add, notebook, close));
  }
  draw();
  return { node };
}
