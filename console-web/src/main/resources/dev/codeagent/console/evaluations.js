// Evaluations known to the server: the list, and one evaluation's page — its progress while it runs, then its report
// drawn by the same script as the file `codeagent eval --report` writes (report/report.js), from the same JSON, so the
// two show the same thing. report.js and ECharts are this origin's files, loaded when a report is first shown; they
// put every string in as text.
import { api } from './api.js';
import { el, show, badge, formatTime, problem } from './dom.js';

const POLL_MS = 1000;

function percent(v) {
  return v === null || v === undefined ? '—' : (v * 100).toFixed(1) + '%';
}

function progress(e) {
  return e.done + ' / ' + e.sampleCount;
}

export function evaluationsPage() {
  const body = el('div', { id: 'evaluations-body', 'aria-live': 'polite', 'aria-busy': 'true' },
    el('p', {}, 'Loading evaluations…'));
  const node = el('section', { class: 'page', 'aria-labelledby': 'evaluations-title' },
    el('h1', { id: 'evaluations-title' }, 'Evaluations'),
    el('p', { class: 'hint' }, 'Evaluations sent to this server (POST /v1/evaluations: problems and the samples to judge);'
      + ' codeagent eval --report writes the same report to a file.'),
    body);
  const ready = (async () => {
    const r = await api('/v1/evaluations');
    const list = r.body.evaluations;
    show(body, list.length === 0 ? el('p', {}, 'No evaluations yet.') : el('table', { class: 'runs evaluations' },
      el('caption', {}, 'Evaluations, newest first'),
      el('thead', {}, el('tr', {}, ['Status', 'Subject', 'Problems', 'Samples judged', 'pass@1', 'Sent']
        .map((h) => el('th', { scope: 'col' }, h)))),
      el('tbody', {}, list.map((e) => el('tr', { 'data-evaluation': e.id },
        el('td', {}, badge(e.status)),
        el('td', {}, el('a', { href: '#/evaluations/' + encodeURIComponent(e.id) }, e.subject || e.id)),
        el('td', { class: 'num' }, String(e.problemCount)),
        el('td', { class: 'num' }, progress(e)),
        el('td', { class: 'num' }, percent(e.passAt1)),
        el('td', {}, el('time', { datetime: e.createdAt }, formatTime(e.createdAt))))))));
    body.setAttribute('aria-busy', 'false');
  })();
  return { node, ready };
}

// ---------------------------------------------------------------- one evaluation

let reportScripts = null;

function script(src) {
  return new Promise((resolve, reject) => {
    const s = document.createElement('script');
    s.src = src;
    s.addEventListener('load', resolve);
    s.addEventListener('error', () => reject(new Error('could not load ' + src)));
    document.head.append(s);
  });
}

/** ECharts, then report.js (which needs it), and the report's style: once per page load. */
function loadReport() {
  if (!reportScripts) {
    document.head.append(el('link', { rel: 'stylesheet', href: '/console/report/report.css' }));
    reportScripts = script('/console/vendor/echarts.min.js').then(() => script('/console/report/report.js'));
    reportScripts.catch(() => { reportScripts = null; });
  }
  return reportScripts;
}

export function evaluationPage(id) {
  const status = el('div', { id: 'evaluation-status', 'aria-live': 'polite' }, el('p', {}, 'Loading the evaluation…'));
  const report = el('div', { id: 'evaluation-report', class: 'ca-report' });
  const forget = el('button', { type: 'button', id: 'forget-evaluation' }, 'Forget this evaluation');
  const node = el('section', { class: 'page evaluation', 'aria-label': 'Evaluation ' + id },
    el('nav', { class: 'toolbar', 'aria-label': 'Evaluation' }, el('a', { href: '#/evaluations' }, 'All evaluations'), forget),
    status, report);
  let timer = null;
  let drawn = null;
  let left = false;
  forget.addEventListener('click', async () => {
    forget.disabled = true;
    try {
      await api('/v1/evaluations/' + encodeURIComponent(id), { method: 'DELETE' });
      location.hash = '#/evaluations';
    } catch (err) {
      forget.disabled = false;
      status.append(problem(err));
    }
  });
  async function refresh() {
    const e = (await api('/v1/evaluations/' + encodeURIComponent(id))).body;
    if (left) return;
    if (e.status === 'QUEUED' || e.status === 'RUNNING') {
      show(status, el('p', {}, badge(e.status), ' ', e.subject, ': ',
        el('span', { id: 'evaluation-progress' }, progress(e)), ' samples judged, ' + e.passed + ' passed so far.'));
      timer = setTimeout(() => refresh().catch((err) => show(status, problem(err))), POLL_MS);
      return;
    }
    if (e.status === 'FAILED') {
      show(status, el('p', {}, badge(e.status), ' ', e.subject), problem('The evaluation failed: ' + e.error));
      return;
    }
    show(status, el('p', {}, badge(e.status), ' sent ', el('time', { datetime: e.createdAt }, formatTime(e.createdAt))));
    await loadReport();
    if (left) return;
    drawn = window.CodeagentReport.render(report, e);
  }
  const ready = refresh();
  return {
    node,
    ready,
    leave: () => {
      left = true;
      clearTimeout(timer);
      if (drawn && drawn.dispose) drawn.dispose();
    },
  };
}
