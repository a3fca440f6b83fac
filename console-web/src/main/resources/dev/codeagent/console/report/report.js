/*
 * codeagent's evaluation report: pass@k, the verdicts, a grid of problems x samples coloured by verdict (each cell
 * opens the sample's code and failure), and time per sample. Rendered from one JSON object (schema 1, written by
 * `codeagent eval --report`; see README.md beside this file) by
 *
 *   CodeagentReport.render(element, data)
 *
 * The report file calls it on load with the JSON of its #codeagent-report-data element; the console's evaluation page
 * (evaluations.js) loads this script and calls it with the same JSON from GET /v1/evaluations/{id}. Needs echarts
 * (global) for the charts. It returns {charts, dispose}: dispose() lets go of the charts and the resize listener.
 *
 * Every string from the data (code, messages, prompts, task ids) goes into the page as text (textContent, or canvas
 * text in the charts): nothing here parses data as HTML, so a sample's code cannot add elements or run script.
 */
(function (global) {
  'use strict';

  // green for passed, reds and oranges for wrong, purple for code that does not even run, greys for not the code's fault
  var VERDICT_COLOURS = {
    ACCEPTED: '#2e9d57',
    WRONG_ANSWER: '#d64541',
    SYNTAX_ERROR: '#8e44ad',
    COMPILATION_ERROR: '#6c3483',
    RUNTIME_ERROR: '#e67e22',
    TIME_LIMIT_EXCEEDED: '#d4ac0d',
    MEMORY_LIMIT_EXCEEDED: '#a04000',
    OUTPUT_LIMIT_EXCEEDED: '#c0398a',
    POLICY_VIOLATION: '#7b241c',
    INTERNAL_ERROR: '#7f8c8d',
    CANCELLED: '#bdc3c7'
  };
  var VERDICT_ORDER = Object.keys(VERDICT_COLOURS);
  // at most this many bars: enough to see a shape, few enough to read the labels
  var HISTOGRAM_BINS = 12;

  function el(tag, className, text) {
    var e = document.createElement(tag);
    if (className) {
      e.className = className;
    }
    if (text !== undefined && text !== null) {
      e.textContent = String(text);
    }
    return e;
  }

  function percent(v) {
    return (v * 100).toFixed(1) + '%';
  }

  function colour(verdict) {
    return VERDICT_COLOURS[verdict] || '#555555';
  }

  function kindsIn(data) {
    var seen = {};
    data.problems.forEach(function (p) {
      p.samples.forEach(function (s) { seen[s.verdict] = true; });
    });
    return VERDICT_ORDER.filter(function (k) { return seen[k]; })
      .concat(Object.keys(seen).filter(function (k) { return VERDICT_ORDER.indexOf(k) < 0; }));
  }

  function header(data) {
    var h = el('header', 'ca-header');
    h.appendChild(el('h1', null, 'Evaluation report'));
    h.appendChild(el('p', 'ca-subject', data.subject));
    var facts = el('dl', 'ca-facts');
    function fact(name, value) {
      facts.appendChild(el('dt', null, name));
      facts.appendChild(el('dd', null, value));
    }
    fact('problems', String(data.problems.length));
    fact('samples', String(data.total));
    fact('passed', data.passed + '/' + data.total + ' (' + percent(data.total === 0 ? 0 : data.passed / data.total) + ')');
    fact('sandbox', data.sandbox + ', ' + data.workers + ' at once');
    fact('wall time', (data.wallTimeMs / 1000).toFixed(1) + ' s');
    if (data.createdAt) {
      fact('written', data.createdAt);
    }
    h.appendChild(facts);
    return h;
  }

  function passAtK(data) {
    var s = el('section', 'ca-passatk');
    s.setAttribute('aria-labelledby', 'ca-passatk-title');
    var title = el('h2', null, 'pass@k');
    title.id = 'ca-passatk-title';
    s.appendChild(title);
    var tiles = el('div', 'ca-tiles');
    Object.keys(data.passAtK).sort(function (a, b) { return a - b; }).forEach(function (k) {
      var v = data.passAtK[k];
      var tile = el('div', 'ca-tile');
      tile.setAttribute('data-k', k);
      tile.appendChild(el('div', 'ca-tile-name', 'pass@' + k));
      var value = el('div', 'ca-tile-value', v === null ? 'n/a' : percent(v));
      value.setAttribute('data-value', v === null ? '' : String(v));
      tile.appendChild(value);
      if (v === null) {
        tile.appendChild(el('div', 'ca-tile-note', 'needs at least ' + k + ' samples of every problem'));
      } else if (data.passAtKBeforeRepair && data.passAtKBeforeRepair[k] !== undefined && data.passAtKBeforeRepair[k] !== null) {
        tile.appendChild(el('div', 'ca-tile-note', percent(data.passAtKBeforeRepair[k]) + ' without repair'));
      }
      tiles.appendChild(tile);
    });
    s.appendChild(tiles);
    return s;
  }

  function chartSection(id, titleText, label) {
    var s = el('section', 'ca-chart-box');
    var title = el('h2', null, titleText);
    title.id = id + '-title';
    s.appendChild(title);
    var c = el('div', 'ca-chart');
    c.id = id;
    c.setAttribute('role', 'img');
    c.setAttribute('aria-label', label);
    s.appendChild(c);
    return { section: s, canvasHolder: c };
  }

  function verdictChart(holder, data, kinds) {
    // the judged samples' verdicts, as the CLI counts them (samples of a problem whose tests cannot load are not)
    var counts = data.verdicts || {};
    kinds = kinds.filter(function (k) { return counts[k]; });
    var chart = global.echarts.init(holder, null, { renderer: 'canvas' });
    chart.setOption({
      animation: false,
      // drawn on the canvas, never as HTML
      tooltip: { trigger: 'item', renderMode: 'richText' },
      grid: { left: 170, right: 30, top: 10, bottom: 30 },
      xAxis: { type: 'value', minInterval: 1 },
      yAxis: { type: 'category', inverse: true, data: kinds },
      series: [{
        type: 'bar',
        name: 'samples',
        data: kinds.map(function (k) { return { value: counts[k], itemStyle: { color: colour(k) } }; }),
        label: { show: true, position: 'right' }
      }]
    });
    return chart;
  }

  /** The smallest of 1, 2, 5, 10, 20, 50 … ms that is at least the raw width: bins a reader can add up. */
  function binWidth(raw) {
    var step = 1;
    while (step * 10 <= raw) {
      step *= 10;
    }
    var nice = [1, 2, 5, 10].map(function (m) { return m * step; }).filter(function (w) { return w >= raw; });
    return nice.length ? nice[0] : 10 * step;
  }

  /** Equal-width bins from 0 to the slowest sample, stacked by verdict. */
  function histogramChart(holder, data, kinds) {
    var times = [];
    data.problems.forEach(function (p) {
      p.samples.forEach(function (s) { times.push({ ms: s.wallMs, verdict: s.verdict }); });
    });
    var max = times.reduce(function (m, t) { return Math.max(m, t.ms); }, 0);
    var width = binWidth((max + 1) / HISTOGRAM_BINS);
    var bins = Math.max(1, Math.ceil((max + 1) / width));
    var labels = [];
    var byKind = {};
    kinds.forEach(function (k) { byKind[k] = new Array(bins).fill(0); });
    for (var i = 0; i < bins; i++) {
      labels.push(i * width + '–' + ((i + 1) * width) + ' ms');
    }
    times.forEach(function (t) {
      byKind[t.verdict][Math.min(bins - 1, Math.floor(t.ms / width))]++;
    });
    var chart = global.echarts.init(holder, null, { renderer: 'canvas' });
    chart.setOption({
      animation: false,
      tooltip: { trigger: 'axis', renderMode: 'richText' },
      legend: { top: 0, data: kinds },
      grid: { left: 50, right: 20, top: 40, bottom: 76 },
      xAxis: { type: 'category', data: labels, name: 'time per sample', nameLocation: 'middle', nameGap: 56,
        axisLabel: { rotate: 30 } },
      yAxis: { type: 'value', minInterval: 1, name: 'samples' },
      series: kinds.map(function (k) {
        return { type: 'bar', name: k, stack: 'all', data: byKind[k], itemStyle: { color: colour(k) } };
      })
    });
    return chart;
  }

  function legend(kinds) {
    var l = el('ul', 'ca-legend');
    l.setAttribute('aria-label', 'verdict colours');
    kinds.forEach(function (k) {
      var item = el('li');
      var swatch = el('span', 'ca-swatch');
      swatch.style.backgroundColor = colour(k);
      item.appendChild(swatch);
      item.appendChild(document.createTextNode(k));
      l.appendChild(item);
    });
    return l;
  }

  function grid(data, kinds, open) {
    var s = el('section', 'ca-grid-box');
    var title = el('h2', null, 'Problems × samples');
    title.id = 'ca-grid-title';
    s.appendChild(title);
    s.appendChild(el('p', 'ca-hint', 'Each cell is one sample, coloured by its verdict: choose one to see its code and why it failed (arrow keys move between cells).'));
    s.appendChild(legend(kinds));
    var table = el('table', 'ca-grid');
    table.setAttribute('aria-labelledby', 'ca-grid-title');
    var width = data.problems.reduce(function (m, p) { return Math.max(m, p.samples.length); }, 0);
    var head = el('thead');
    var headRow = el('tr');
    headRow.appendChild(el('th', null, 'problem'));
    for (var i = 0; i < width; i++) {
      var th = el('th', 'ca-col', String(i + 1));
      th.setAttribute('scope', 'col');
      headRow.appendChild(th);
    }
    head.appendChild(headRow);
    table.appendChild(head);
    var body = el('tbody');
    data.problems.forEach(function (p, pi) {
      var row = el('tr');
      var name = el('th', 'ca-task', p.id);
      name.setAttribute('scope', 'row');
      if (p.error) {
        name.title = 'not judged: ' + p.error;
      }
      row.appendChild(name);
      p.samples.forEach(function (sample, si) {
        var td = el('td');
        var b = el('button', 'ca-cell');
        b.type = 'button';
        b.style.backgroundColor = colour(sample.verdict);
        b.setAttribute('data-problem', String(pi));
        b.setAttribute('data-sample', String(si));
        b.setAttribute('data-verdict', sample.verdict);
        b.setAttribute('aria-label', p.id + ' sample ' + (sample.index + 1) + ': ' + sample.verdict);
        b.title = p.id + ' #' + (sample.index + 1) + ' ' + sample.verdict;
        // one tab stop for the whole grid (thousands of cells); the arrow keys move within it
        b.tabIndex = pi === 0 && si === 0 ? 0 : -1;
        td.appendChild(b);
        row.appendChild(td);
      });
      body.appendChild(row);
    });
    table.appendChild(body);
    // one listener for all cells: a full HumanEval run at 200 samples is 32,800 of them
    table.addEventListener('click', function (event) {
      var b = event.target.closest ? event.target.closest('button.ca-cell') : null;
      if (b) {
        open(Number(b.getAttribute('data-problem')), Number(b.getAttribute('data-sample')), b);
      }
    });
    table.addEventListener('keydown', function (event) {
      var moves = { ArrowLeft: [0, -1], ArrowRight: [0, 1], ArrowUp: [-1, 0], ArrowDown: [1, 0] };
      var move = moves[event.key];
      var from = event.target;
      if (!move || !from.classList.contains('ca-cell')) {
        return;
      }
      var pi = Number(from.getAttribute('data-problem')) + move[0];
      var si = Number(from.getAttribute('data-sample')) + move[1];
      if (pi < 0 || pi >= data.problems.length) {
        return;
      }
      si = Math.max(0, Math.min(si, data.problems[pi].samples.length - 1));
      var to = table.querySelector('button[data-problem="' + pi + '"][data-sample="' + si + '"]');
      if (to) {
        event.preventDefault();
        from.tabIndex = -1;
        to.tabIndex = 0;
        to.focus();
      }
    });
    var scroller = el('div', 'ca-grid-scroll');
    scroller.appendChild(table);
    s.appendChild(scroller);
    return s;
  }

  /** The code with line numbers; the error line marked. */
  function codeView(code, errorLine) {
    var pre = el('pre', 'ca-code');
    var lines = code.split('\n');
    if (lines.length > 1 && lines[lines.length - 1] === '') {
      lines.pop();
    }
    lines.forEach(function (text, i) {
      var line = el('span', 'ca-line' + (errorLine === i + 1 ? ' ca-error-line' : ''));
      line.setAttribute('data-line', String(i + 1));
      line.appendChild(el('span', 'ca-lineno', String(i + 1)));
      line.appendChild(el('span', 'ca-text', text + '\n'));
      pre.appendChild(line);
    });
    return pre;
  }

  function detail(holder) {
    return function show(data, pi, si) {
      var p = data.problems[pi];
      var s = p.samples[si];
      holder.textContent = '';
      holder.hidden = false;
      var h = el('h2', null, p.id + ' — sample ' + (s.index + 1));
      h.id = 'ca-detail-title';
      holder.appendChild(h);
      var verdict = el('p', 'ca-verdict');
      // the verdict's colour as a bar beside dark text: white text on the oranges and yellows is unreadable (WCAG AA)
      var badge = el('span', 'ca-badge', s.verdict);
      badge.style.borderLeftColor = colour(s.verdict);
      verdict.appendChild(badge);
      verdict.appendChild(document.createTextNode(' ' + s.wallMs + ' ms' + (s.outcome ? ', the execution ended ' + s.outcome : ', not run')));
      holder.appendChild(verdict);
      if (p.error) {
        holder.appendChild(el('p', 'ca-message', 'Not judged: the problem\'s tests cannot load: ' + p.error));
      }
      if (s.message) {
        var m = el('pre', 'ca-message', s.message);
        m.id = 'ca-detail-message';
        holder.appendChild(m);
      }
      var summary = s.error && (s.error.summary || s.error.type + (s.error.message ? ': ' + s.error.message : ''));
      if (summary && summary !== s.message) {
        var ep = el('p', 'ca-error', summary);
        ep.id = 'ca-detail-error';
        holder.appendChild(ep);
      }
      holder.appendChild(el('h3', null, 'Code'));
      var code = codeView((p.codePrefix || '') + s.code, s.error ? s.error.line : null);
      code.id = 'ca-detail-code';
      holder.appendChild(code);
      if (p.prompt && p.prompt !== p.codePrefix) {
        holder.appendChild(el('h3', null, 'Problem'));
        holder.appendChild(el('pre', 'ca-prompt', p.prompt));
      }
      // focus stays on the cell, so the arrow keys go on from there; the panel is announced (aria-live) and shown
      if (holder.scrollIntoView) {
        holder.scrollIntoView({ block: 'nearest' });
      }
    };
  }

  function render(root, data) {
    if (!data || data.schema !== 1) {
      root.textContent = 'Unknown report format (expected schema 1).';
      return null;
    }
    root.textContent = '';
    var kinds = kindsIn(data);
    root.appendChild(header(data));
    root.appendChild(passAtK(data));
    var charts = el('div', 'ca-charts');
    var verdicts = chartSection('ca-verdicts', 'Verdicts', 'samples per verdict');
    var times = chartSection('ca-times', 'Time per sample', 'histogram of time per sample, stacked by verdict');
    charts.appendChild(verdicts.section);
    charts.appendChild(times.section);
    root.appendChild(charts);
    var detailBox = el('section', 'ca-detail');
    detailBox.id = 'ca-detail';
    detailBox.hidden = true;
    detailBox.setAttribute('aria-labelledby', 'ca-detail-title');
    detailBox.setAttribute('aria-live', 'polite');
    var show = detail(detailBox);
    var selected = null;
    root.appendChild(grid(data, kinds, function (pi, si, button) {
      if (selected) {
        selected.removeAttribute('aria-pressed');
        selected.classList.remove('ca-selected');
      }
      selected = button;
      button.setAttribute('aria-pressed', 'true');
      button.classList.add('ca-selected');
      show(data, pi, si);
    }));
    root.appendChild(detailBox);
    var made = [];
    function resize() {
      made.forEach(function (c) { c.resize(); });
    }
    if (global.echarts) {
      made.push(verdictChart(verdicts.canvasHolder, data, kinds));
      made.push(histogramChart(times.canvasHolder, data, kinds));
      global.addEventListener('resize', resize);
    } else {
      verdicts.canvasHolder.textContent = 'Charts need echarts.';
      times.canvasHolder.textContent = 'Charts need echarts.';
    }
    // a page that shows reports one after another (the console) lets go of the charts when it leaves one
    return {
      charts: made,
      dispose: function () {
        global.removeEventListener('resize', resize);
        made.forEach(function (c) { c.dispose(); });
        made = [];
      }
    };
  }

  global.CodeagentReport = { render: render, colours: VERDICT_COLOURS };

  var embedded = document.getElementById('codeagent-report-data');
  var root = document.getElementById('codeagent-report');
  if (embedded && root) {
    render(root, JSON.parse(embedded.textContent));
  }
})(window);
