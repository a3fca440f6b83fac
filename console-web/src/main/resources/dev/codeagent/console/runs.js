// Runs: the list (paged with the API's cursor, filtered by status) and one run's page (task, attempts with their code,
// the diff against the attempt before, the error line, the feedback, output tails, timings; live while it runs).
import { api, events } from './api.js';
import { el, show, badge, formatMs, formatTime, formatBytes, problem } from './dom.js';
import { lineDiff } from './diff.js';

const STATUSES = ['RUNNING', 'SOLVED', 'FAILED', 'ERROR', 'CANCELLED'];
const PAGE = 20;
const TAIL = 4000;

function duration(run) {
  if (!run.startedAt) return '—';
  const end = run.endedAt ? new Date(run.endedAt) : new Date();
  return formatMs(end - new Date(run.startedAt));
}

function where(placement) {
  return placement ? placement.tier + ' on ' + placement.host + ' (pid ' + placement.pid + ')' : '—';
}

function firstLine(text, max) {
  const line = String(text || '').split('\n')[0];
  return line.length > max ? line.slice(0, max - 1) + '…' : line;
}

function runsHash(status, before) {
  const q = new URLSearchParams();
  if (status) q.set('status', status);
  if (before) q.set('before', before);
  const s = q.toString();
  return '#/runs' + (s ? '?' + s : '');
}

export function runsPage(params) {
  const status = STATUSES.includes(params.get('status')) ? params.get('status') : '';
  const before = params.get('before');
  const select = el('select', { id: 'status-filter', name: 'status' },
    el('option', { value: '' }, 'All'), STATUSES.map((s) => el('option', { value: s, selected: s === status }, s)));
  select.addEventListener('change', () => { location.hash = runsHash(select.value, null); });
  const body = el('div', { id: 'runs-body', 'aria-live': 'polite', 'aria-busy': 'true' }, el('p', {}, 'Loading runs…'));
  const node = el('section', { class: 'page', 'aria-labelledby': 'runs-title' },
    el('h1', { id: 'runs-title' }, 'Runs'),
    el('div', { class: 'toolbar' }, el('label', { for: 'status-filter' }, 'Status'), select,
      before ? el('a', { href: runsHash(status, null) }, 'Newest runs') : null),
    body);
  const ready = (async () => {
    const { runs, next } = await load(status, before);
    const rows = runs.map((r) => el('tr', { 'data-run': r.id },
      el('td', {}, badge(r.status)),
      el('td', {}, el('a', { href: '#/runs/' + encodeURIComponent(r.id) }, firstLine(r.prompt, 90) || r.id)),
      el('td', {}, r.language),
      el('td', { class: 'num' }, r.attemptCount + ' / ' + r.maxAttempts),
      el('td', {}, el('time', { datetime: r.startedAt }, formatTime(r.startedAt))),
      el('td', { class: 'num' }, duration(r)),
      el('td', {}, where(r.placement))));
    show(body,
      runs.length === 0 ? el('p', {}, status ? 'No ' + status + (before ? ' runs older than these.' : ' runs.')
        : 'No runs yet.') : el('table', { class: 'runs' },
        el('caption', {}, status ? status + ' runs, newest first' : 'Runs, newest first'),
        el('thead', {}, el('tr', {}, ['Status', 'Task', 'Language', 'Attempts', 'Started', 'Time', 'Where it ran']
          .map((h) => el('th', { scope: 'col' }, h)))),
        el('tbody', {}, rows)),
      next ? el('nav', { class: 'pager', 'aria-label': 'Pages of runs' },
        el('a', { href: runsHash(status, next), rel: 'next', id: 'older-runs' }, 'Older runs')) : null);
    body.setAttribute('aria-busy', 'false');
    // when the browser has painted the list: the figure the browser test reports for a store of 10,000 runs
    requestAnimationFrame(() => setTimeout(() => performance.mark('runs-painted'), 0));
  })();
  return { node, ready };
}

function load(status, before) {
  // the store filters by status in its query (GET /v1/runs?status=), so a rare status among many runs fills its page
  const q = new URLSearchParams({ limit: String(PAGE) });
  if (status) q.set('status', status);
  if (before) q.set('before', before);
  return api('/v1/runs?' + q.toString()).then((r) => ({ runs: r.body.runs, next: r.body.next }));
}

// ---------------------------------------------------------------- one run

/** Code with line numbers; the error line marked (and said in words, for a screen reader). */
export function codeView(code, label, errorLine) {
  const lines = String(code || '').replace(/\n$/, '').split('\n');
  return el('pre', { class: 'code', tabindex: '0', 'aria-label': label },
    lines.map((text, i) => {
      const n = i + 1;
      const isError = n === errorLine;
      return el('span', { class: 'line' + (isError ? ' error-line' : ''), 'data-line': n },
        el('span', { class: 'ln', 'aria-hidden': 'true' }, String(n)),
        isError ? el('span', { class: 'visually-hidden' }, 'Error on line ' + n + ': ') : null,
        text + '\n');
    }));
}

function lines(n) {
  return n + (n === 1 ? ' line' : ' lines');
}

function diffView(before, after, label) {
  const ops = lineDiff(before, after);
  const changed = ops.filter((o) => o.op !== 'same').length;
  return el('div', { class: 'diff-box' },
    el('p', { class: 'diff-summary' }, changed === 0 ? 'No change from the attempt before.'
      : lines(ops.filter((o) => o.op === 'add').length) + ' added, ' + lines(ops.filter((o) => o.op === 'del').length)
        + ' removed'),
    el('pre', { class: 'diff', tabindex: '0', 'aria-label': label },
      ops.map((o) => el('span', { class: 'diff-line diff-' + o.op },
        el('span', { class: 'visually-hidden' }, o.op === 'add' ? 'added: ' : o.op === 'del' ? 'removed: ' : ''),
        el('span', { class: 'sign', 'aria-hidden': 'true' }, o.op === 'add' ? '+' : o.op === 'del' ? '-' : ' '),
        o.text + '\n'))));
}

/** The end of an output, as text; says how much was left out. */
export function tail(name, text, truncated) {
  const t = text || '';
  const cut = t.length > TAIL ? t.slice(t.length - TAIL) : t;
  return el('div', { class: 'output' },
    el('h4', {}, name, t.length > TAIL ? ' (last ' + TAIL + ' of ' + t.length + ' characters)' : '',
      truncated ? ' — cut by the sandbox\'s output limit' : ''),
    t ? el('pre', { class: 'stream stream-' + name, tabindex: '0', 'aria-label': name }, cut) : el('p', { class: 'empty' }, 'empty'));
}

function facts(pairs) {
  return el('dl', { class: 'facts' }, pairs.filter(([, v]) => v !== null && v !== undefined && v !== '')
    .map(([k, v]) => [el('dt', {}, k), el('dd', {}, v)]));
}

function attemptView(a, previous) {
  const v = a.verdict || {};
  const error = v.error;
  const x = a.execution;
  return el('section', { class: 'attempt', id: 'attempt-' + a.number, 'aria-labelledby': 'attempt-' + a.number + '-title' },
    el('h3', { id: 'attempt-' + a.number + '-title' }, 'Attempt ' + a.number + ' ', badge(v.kind)),
    v.message ? el('p', { class: 'verdict-message' }, v.message) : null,
    facts([['Generation', formatMs(a.generationTimeMs)], ['Execution', formatMs(a.executionTimeMs)],
      ['Outcome', x && x.outcome], ['Exit code', x && x.exitCode], ['Signal', x && x.signal],
      ['Wall time', x && formatMs(x.wallTimeMs)], ['CPU time', x && x.cpuTimeMs !== null ? formatMs(x.cpuTimeMs) : null],
      ['Peak memory', x && x.peakMemoryBytes !== null ? formatBytes(x.peakMemoryBytes) : null],
      ['Where', where(a.placement)]]),
    error ? el('p', { class: 'error-summary' }, error.type + (error.message ? ': ' + error.message : '')
      + (error.line ? ' (line ' + error.line + ')' : '')) : null,
    el('div', { class: 'columns' },
      el('div', {}, el('h4', {}, 'Code'), codeView(a.code, 'Code of attempt ' + a.number, error ? error.line : null)),
      previous ? el('div', {}, el('h4', {}, 'Changes from attempt ' + previous.number),
        diffView(previous.code, a.code, 'Changes from attempt ' + previous.number + ' to ' + a.number)) : null),
    a.feedback ? el('div', {}, el('h4', {}, 'Feedback the model saw next'),
      el('pre', { class: 'feedback', tabindex: '0', 'aria-label': 'Feedback after attempt ' + a.number }, a.feedback)) : null,
    x ? el('div', { class: 'columns' }, tail('stdout', x.stdout, x.stdoutTruncated), tail('stderr', x.stderr, x.stderrTruncated)) : null,
    a.reply ? el('details', {}, el('summary', {}, 'The model\'s whole reply'), el('pre', { class: 'reply' }, a.reply)) : null);
}

export function runPage(id) {
  const node = el('section', { class: 'page', 'aria-labelledby': 'run-title' },
    el('p', {}, el('a', { href: '#/runs' }, '← All runs')),
    el('h1', { id: 'run-title' }, 'Run ', el('code', {}, id)));
  const head = el('div', { id: 'run-head' });
  const live = el('div', { id: 'run-live', 'aria-live': 'polite' });
  const body = el('div', { id: 'run-body' }, el('p', {}, 'Loading…'));
  node.append(head, live, body);
  const stop = new AbortController();
  let rendered = null;

  function render(run) {
    rendered = run;
    const cancel = run.status === 'RUNNING' ? el('button', { type: 'button', id: 'cancel-run', class: 'danger' }, 'Cancel run') : null;
    if (cancel) {
      cancel.addEventListener('click', async () => {
        cancel.disabled = true;
        try {
          const r = await api('/v1/runs/' + encodeURIComponent(id), { method: 'DELETE' });
          render(r.body);
        } catch (err) {
          cancel.disabled = false;
          live.append(problem(err));
        }
      });
    }
    show(head, el('p', { class: 'run-status' }, 'Status ', badge(run.status),
      run.reason ? el('span', { class: 'reason' }, ' — ' + run.reason) : null),
    facts([['Language', run.language], ['Attempts', run.attemptCount + ' of ' + run.maxAttempts],
      ['Started', formatTime(run.startedAt)], ['Ended', run.endedAt ? formatTime(run.endedAt) : 'still running'],
      ['Time', duration(run)], ['Owner', run.owner]]), cancel);
    const t = run.task || {};
    show(body,
      el('section', { 'aria-labelledby': 'task-title' }, el('h2', { id: 'task-title' }, 'Task'),
        el('pre', { class: 'prompt', tabindex: '0', 'aria-label': 'Prompt' }, run.prompt),
        t.tests ? [el('h4', {}, 'Tests'), codeView(t.tests, 'Tests')] : null,
        t.expectedOutput ? [el('h4', {}, 'Expected output'), el('pre', { class: 'stream' }, t.expectedOutput)] : null),
      el('section', { 'aria-labelledby': 'attempts-title' }, el('h2', { id: 'attempts-title' }, 'Attempts'),
        run.attempts.length === 0 ? el('p', {}, 'No attempt has finished yet.') : null,
        run.attempts.map((a, i) => attemptView(a, i > 0 ? run.attempts[i - 1] : null))));
  }

  async function follow() {
    let pending = null;
    await events('/v1/runs/' + encodeURIComponent(id) + '/events', (name, data) => {
      if (name === 'code-generated') {
        show(live, el('section', { class: 'attempt live' }, el('h3', {}, 'Attempt ' + data.attempt + ' running'),
          codeView(data.code, 'Code of attempt ' + data.attempt + ' (running)', null)));
      } else if (name === 'attempt-started') {
        show(live, el('p', {}, 'Attempt ' + data.attempt + ' of ' + data.maxAttempts + ': generating code…'));
      } else if (name === 'verdict' || name === 'run-finished') {
        if (name === 'run-finished') show(live, el('p', {}, 'The run ended: ' + data.status + '.'));
        clearTimeout(pending);
        pending = setTimeout(refresh, 50);
      }
    }, stop.signal);
    clearTimeout(pending);
    await refresh();
  }

  async function refresh() {
    if (stop.signal.aborted) return;
    const r = await api('/v1/runs/' + encodeURIComponent(id));
    render(r.body);
  }

  const ready = (async () => {
    const r = await api('/v1/runs/' + encodeURIComponent(id));
    render(r.body);
    if (r.body.status === 'RUNNING') {
      follow().catch((err) => { if (!stop.signal.aborted) live.append(problem(err)); });
    }
    return rendered;
  })();
  return { node, ready, leave: () => stop.abort() };
}
