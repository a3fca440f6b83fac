// A line diff of two texts (longest common subsequence, trimmed of the common head and tail first): what changed
// between two attempts' code. Attempts are short; past LIMIT lines in the middle it shows the old lines removed
// and the new ones added rather than spend quadratic time.

const LIMIT = 2000;

/** The lines of b against a: [{op: 'same'|'del'|'add', text, oldLine, newLine}] (line numbers from 1, null if none). */
export function lineDiff(a, b) {
  const x = split(a), y = split(b);
  let head = 0;
  while (head < x.length && head < y.length && x[head] === y[head]) head++;
  let tail = 0;
  while (tail < x.length - head && tail < y.length - head && x[x.length - 1 - tail] === y[y.length - 1 - tail]) tail++;
  const xs = x.slice(head, x.length - tail), ys = y.slice(head, y.length - tail);
  const out = [];
  for (let i = 0; i < head; i++) out.push({ op: 'same', text: x[i], oldLine: i + 1, newLine: i + 1 });
  for (const d of middle(xs, ys)) {
    out.push({ op: d.op, text: d.text, oldLine: d.i === null ? null : head + d.i + 1,
      newLine: d.j === null ? null : head + d.j + 1 });
  }
  for (let k = tail; k > 0; k--) {
    out.push({ op: 'same', text: x[x.length - k], oldLine: x.length - k + 1, newLine: y.length - k + 1 });
  }
  return out;
}

function split(text) {
  if (!text) return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

function middle(xs, ys) {
  const n = xs.length, m = ys.length;
  if (n === 0 || m === 0 || n > LIMIT || m > LIMIT) {
    return [...xs.map((t, i) => ({ op: 'del', text: t, i, j: null })), ...ys.map((t, j) => ({ op: 'add', text: t, i: null, j }))];
  }
  // lcs[i][j]: the longest common subsequence of xs[i..] and ys[j..]
  const lcs = Array.from({ length: n + 1 }, () => new Uint16Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i][j] = xs[i] === ys[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  const out = [];
  let i = 0, j = 0;
  while (i < n && j < m) {
    if (xs[i] === ys[j]) {
      out.push({ op: 'same', text: xs[i], i: i++, j: j++ });
    } else if (lcs[i + 1][j] >= lcs[i][j + 1]) {
      out.push({ op: 'del', text: xs[i], i: i++, j: null });
    } else {
      out.push({ op: 'add', text: ys[j], i: null, j: j++ });
    }
  }
  while (i < n) out.push({ op: 'del', text: xs[i], i: i++, j: null });
  while (j < m) out.push({ op: 'add', text: ys[j], i: null, j: j++ });
  return out;
}
