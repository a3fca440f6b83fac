// Building the page without markup strings: every text (program output, prompts, code, model replies) goes in as a
// text node. The one way to insert markup is sanitizedHtml, for a session output the server's OutputSanitizer wrote.

/** An element with attributes (strings, or functions for on* handlers) and children (nodes or text). */
export function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (typeof value === 'function') {
      node.addEventListener(name.replace(/^on/, ''), value);
    } else if (value === true) {
      node.setAttribute(name, '');
    } else {
      node.setAttribute(name, String(value));
    }
  }
  append(node, children);
  return node;
}

function append(node, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replaces a node's content with these children. */
export function show(node, ...children) {
  node.replaceChildren();
  append(node, children);
  return node;
}

/**
 * Markup the server's OutputSanitizer wrote (allow-listed tags, no URL, style or script attribute): parsed into an
 * inert template first, so nothing in it runs or loads while it is built, then moved into the page.
 */
export function sanitizedHtml(html) {
  const template = document.createElement('template');
  template.innerHTML = html;
  const box = el('div', { class: 'html-output' });
  box.append(template.content);
  return box;
}

export function formatMs(ms) {
  if (ms === null || ms === undefined) return '—';
  return ms < 1000 ? ms + ' ms' : (ms / 1000).toFixed(ms < 10000 ? 2 : 1) + ' s';
}

export function formatTime(iso) {
  if (!iso) return '—';
  const d = new Date(iso);
  return d.toLocaleString();
}

export function formatBytes(n) {
  if (n === null || n === undefined) return '—';
  if (n < 1024) return n + ' B';
  if (n < 1024 * 1024) return (n / 1024).toFixed(1) + ' KiB';
  return (n / 1024 / 1024).toFixed(1) + ' MiB';
}

/** A status word as a badge (its colour from the class, its meaning from the text). */
export function badge(word) {
  return el('span', { class: 'badge badge-' + String(word || 'none').toLowerCase() }, word || '—');
}

/** An error line for the page, as text. */
export function problem(error) {
  return el('p', { class: 'problem', role: 'alert' }, error && error.message ? error.message : String(error));
}
