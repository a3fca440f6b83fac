// Playground: one program through POST /v1/executions, and everything the answer says shown plainly.
import { api } from './api.js';
import { el, show, badge, formatMs, formatBytes, problem } from './dom.js';
import { tail } from './runs.js';

const SAMPLE = { python: 'import sys\nname = sys.stdin.readline().strip() or "world"\nprint(f"hello, {name}")\n' };

function field(id, label, input, hint) {
  input.id = id;
  return el('div', { class: 'field' }, el('label', { for: id }, label), input,
    hint ? el('span', { class: 'hint', id: id + '-hint' }, hint) : null);
}

function stage(name, s) {
  return el('section', { class: 'stage', 'aria-label': name + ' stage' },
    el('h3', {}, name + ' ', badge(s.outcome)),
    el('dl', { class: 'facts' },
      el('dt', {}, 'Exit code'), el('dd', {}, s.exitCode === null ? '—' : String(s.exitCode)),
      el('dt', {}, 'Signal'), el('dd', {}, s.signal === null ? '—' : String(s.signal)),
      el('dt', {}, 'Wall time'), el('dd', {}, formatMs(s.wallTimeMs)),
      el('dt', {}, 'CPU time'), el('dd', {}, s.cpuTimeMs === null ? '—' : formatMs(s.cpuTimeMs)),
      el('dt', {}, 'Peak memory'), el('dd', {}, formatBytes(s.peakMemoryBytes))),
    el('div', { class: 'columns' }, tail('stdout', s.stdout, s.stdoutTruncated), tail('stderr', s.stderr, s.stderrTruncated)));
}

export function playgroundPage() {
  const language = el('select', { name: 'language' }, el('option', { value: 'python' }, 'python'));
  const code = el('textarea', { name: 'code', rows: '12', spellcheck: 'false', class: 'code-input' }, SAMPLE.python);
  const stdin = el('textarea', { name: 'stdin', rows: '3', spellcheck: 'false' });
  const timeout = el('input', { name: 'timeout', type: 'text', value: '5s', size: '8', 'aria-describedby': 'pg-timeout-hint' });
  const memory = el('input', { name: 'memory', type: 'text', value: '256m', size: '8', 'aria-describedby': 'pg-memory-hint' });
  const run = el('button', { type: 'submit', id: 'pg-run' }, 'Run');
  const result = el('div', { id: 'pg-result', 'aria-live': 'polite' });
  const form = el('form', { class: 'playground', 'aria-labelledby': 'pg-title' },
    field('pg-language', 'Language', language),
    field('pg-code', 'Code', code),
    field('pg-stdin', 'Standard input', stdin),
    el('fieldset', { class: 'limits' }, el('legend', {}, 'Limits'),
      field('pg-timeout', 'Wall time', timeout, 'e.g. 500ms, 5s'), field('pg-memory', 'Memory', memory, 'e.g. 256m, 1g')),
    run);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    run.disabled = true;
    show(result, el('p', {}, 'Running…'));
    const limits = {};
    if (timeout.value.trim()) limits.timeoutMs = timeout.value.trim();
    if (memory.value.trim()) limits.memoryBytes = memory.value.trim();
    try {
      const r = await api('/v1/executions', { method: 'POST',
        body: { language: language.value, code: code.value, stdin: stdin.value, limits } });
      const x = r.body;
      show(result,
        el('h2', {}, 'Result ', badge(x.outcome)),
        x.detail ? el('p', { class: 'detail' }, x.detail) : null,
        el('p', { class: 'isolation' }, 'Sandbox ', el('strong', {}, x.sandbox), '; isolation in force: ',
          x.isolation.length ? x.isolation.join(', ') : 'none reported'),
        x.compile ? stage('Compile', x.compile) : null,
        stage(x.compile ? 'Run' : 'Program', x));
    } catch (err) {
      show(result, problem(err));
    } finally {
      run.disabled = false;
    }
  });
  const node = el('section', { class: 'page', 'aria-labelledby': 'pg-title' }, el('h1', { id: 'pg-title' }, 'Playground'),
    form, result);
  const ready = (async () => {
    try {
      const r = await api('/v1/languages');
      const ids = r.body.map((l) => (typeof l === 'string' ? l : l.id || l.language || l.name)).filter(Boolean);
      if (ids.length) {
        show(language, ids.map((id) => el('option', { value: id, selected: id === 'python' }, id)));
      }
    } catch (err) {
      result.append(problem(err));
    }
  })();
  return { node, ready };
}
