// The report page's only script (ipalinks report): sorts tables when a header is clicked, runs the search field
// and filters, and opens every <details> before printing. The page's Content-Security-Policy allows exactly this
// file, by its SHA-256, which HTMLReporter computes. It reads only the DOM and fetches nothing; without it the
// page is whole, with the filter bar hidden.
(() => {
  'use strict';
  const value = (cell, numeric) => {
    const raw = cell.dataset.sort ?? cell.textContent.trim();
    if (!numeric) return raw;
    const n = parseFloat(raw);
    return Number.isNaN(n) ? -Infinity : n;
  };
  for (const table of document.querySelectorAll('table.sortable')) {
    const heads = Array.from(table.tHead.rows[0].cells);
    heads.forEach((th, column) => {
      th.tabIndex = 0;
      const sort = () => {
        const numeric = th.dataset.type === 'num';
        const ascending = th.getAttribute('aria-sort') !== 'ascending';
        for (const other of heads) other.removeAttribute('aria-sort');
        th.setAttribute('aria-sort', ascending ? 'ascending' : 'descending');
        const body = table.tBodies[0];
        const rows = Array.from(body.rows, (row, index) => ({ row, index, key: value(row.cells[column], numeric) }));
        rows.sort((a, b) => {
          const order = numeric
            ? Math.sign(a.key - b.key)
            : a.key.localeCompare(b.key, undefined, { numeric: true, sensitivity: 'base' });
          return (ascending ? order : -order) || a.index - b.index;
        });
        body.append(...rows.map((r) => r.row));
      };
      th.addEventListener('click', sort);
      th.addEventListener('keydown', (event) => {
        if (event.key === 'Enter' || event.key === ' ') {
          event.preventDefault();
          sort();
        }
      });
    });
  }

  // A collapsed body is a <noscript>, which the parser keeps as text while script runs (so 2,000 apps open
  // fast); opening it turns that text, the page's own escaped markup, into elements, once.
  const materialize = (details) => {
    const body = details.querySelector(':scope > noscript');
    if (!body) return;
    const template = document.createElement('template');
    template.innerHTML = body.textContent;
    body.replaceWith(template.content);
  };
  document.addEventListener('toggle', (event) => {
    if (event.target.open) materialize(event.target);
  }, true);
  // The text a body shows, read from its markup without building it: tags dropped, the five entities decoded.
  // (No less-than sign in this script: the page's tests scan it as markup; '\x3c' stands for one.)
  const entities = { '&amp;': '&', '&lt;': '\x3c', '&gt;': '>', '&quot;': '"', '&#39;': "'" };
  const shownText = (markup) => markup.replace(/\x3c[^>]*>/g, '').replace(/&(amp|lt|gt|quot|#39);/g, (e) => entities[e]);
  const textOf = (element) => {
    let text = '';
    const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
    while (walker.nextNode()) {
      const node = walker.currentNode;
      text += node.parentNode.localName === 'noscript' ? shownText(node.data) : node.data;
    }
    return text;
  };

  // Search and filters. Every filterable element (a row of the apps or hosts table, an app's details) carries
  // data-st (outcomes), data-sv (services) and data-sh (shares a host). The search matches an element's own text;
  // an app (data-h) also matches when the rules of a host it claims do, so a path finds the apps it opens.
  const bar = document.getElementById('filters');
  if (bar) {
    const query = document.getElementById('q');
    const status = document.getElementById('f-st');
    const service = document.getElementById('f-sv');
    const shared = document.getElementById('f-sh');
    const count = document.getElementById('f-count');
    // The search index is built on the first use, not at load: opening a page of 2,000 apps stays fast, and the
    // first keystroke pays for it once.
    let index;
    const build = () => {
      // The patterns of each host's rules tables, which an app's search also reads (not the file's app ids).
      const hostRules = new Map();
      for (const row of document.querySelectorAll('table.hosts > tbody > tr')) {
        // Read from the body's text while it is unopened, from its tables once it was opened and built.
        const body = row.querySelector('noscript');
        const tables = body
          ? (body.textContent.match(/\x3ctable class="rules">[\s\S]*?\x3c\/table>/g) || []).map((t) =>
              shownText(t.replace(/\x3cthead>[\s\S]*?\x3c\/thead>/, '')))
          : Array.from(row.querySelectorAll('table.rules'), (t) => t.tBodies[0].textContent);
        hostRules.set(row.id.slice(2), tables.join(' ').toLowerCase());
      }
      // An app's row in the apps table carries the filters for the app and is searched with its details' text too;
      // the details show and hide with the row. Without an apps table (one app), the details decide for themselves.
      const details = new Map(Array.from(document.querySelectorAll('.app'), (el) => [el.id, el]));
      const followers = new Set();
      const items = [];
      // A host row names its claimers without their bundle ids; it also matches what their rows in the apps table
      // say (name, bundle id, team), so searching a bundle id shows the hosts that app claims.
      const identity = new Map();
      for (const row of document.querySelectorAll('#apps > tbody > tr')) {
        const link = row.querySelector('a');
        if (link) identity.set(link.getAttribute('href').slice(1), row.textContent.toLowerCase());
      }
      for (const el of document.querySelectorAll('#apps > tbody > tr, table.hosts > tbody > tr')) {
        const link = el.id ? null : el.querySelector('a');
        const own = link ? details.get(link.getAttribute('href').slice(1)) : undefined;
        if (own) followers.add(own);
        let text = textOf(el);
        if (own) text += ' ' + textOf(own);
        if (el.id) {
          for (const a of el.cells[2].querySelectorAll('a')) text += ' ' + (identity.get(a.getAttribute('href').slice(1)) || '');
        }
        items.push({ el, own, text: text.toLowerCase(), hosts: (el.dataset.h || '').split(' ').filter(Boolean),
          kind: el.id ? 'host' : 'app' });
      }
      for (const el of details.values()) {
        if (!followers.has(el)) {
          items.push({ el, own: undefined, text: textOf(el).toLowerCase(),
            hosts: (el.dataset.h || '').split(' ').filter(Boolean), kind: 'app' });
        }
      }
      return { hostRules, items };
    };
    const words = (text) => text.toLowerCase().split(/\s+/).filter(Boolean);
    const apply = () => {
      index = index || build();
      const { hostRules, items } = index;
      const terms = words(query.value);
      const total = { app: 0, host: 0 };
      const shown = { app: 0, host: 0 };
      for (const item of items) {
        const el = item.el;
        const matches = (term) =>
          item.text.includes(term) || item.hosts.some((h) => (hostRules.get(h) || '').includes(term));
        const show =
          terms.every(matches) &&
          (!status.value || (el.dataset.st || '').split(' ').includes(status.value)) &&
          (!service.value || (el.dataset.sv || '').split(' ').includes(service.value)) &&
          (!shared.checked || el.dataset.sh === '1');
        el.hidden = !show;
        if (item.own) item.own.hidden = !show;
        total[item.kind] += 1;
        if (show) shown[item.kind] += 1;
      }
      const filtering = terms.length > 0 || status.value || service.value || shared.checked;
      count.textContent = filtering ? `${shown.app} of ${total.app} apps, ${shown.host} of ${total.host} hosts` : '';
    };
    for (const control of [query, status, service, shared]) control.addEventListener('input', apply);
    shared.addEventListener('change', apply);
    bar.hidden = false;
    // A link lands below the sticky bar, however many lines it wraps to (three on a phone): its height is kept
    // where the style sheet's scroll margin reads it.
    const barHeight = () => document.documentElement.style.setProperty('--bar', `${bar.offsetHeight}px`);
    barHeight();
    window.addEventListener('resize', barHeight);
  }

  // A link to an app or a host (`#app-3`, from Claimed by, or from another page) opens what it points at and the
  // details around it: it landed on a closed summary, the app's domains one click further.
  const openTarget = () => {
    const id = decodeURIComponent(location.hash.slice(1));
    let node = id ? document.getElementById(id) : null;
    for (; node; node = node.parentElement) {
      if (node.localName === 'details' && !node.open) {
        materialize(node);
        node.open = true;
      }
    }
  };
  window.addEventListener('hashchange', openTarget);
  openTarget();

  // Printing (or saving as PDF) shows every app's details, not just their summaries.
  window.addEventListener('beforeprint', () => {
    // Bodies first (they may hold details of their own), then every details open.
    for (const details of document.querySelectorAll('details')) materialize(details);
    for (const details of document.querySelectorAll('details')) details.open = true;
  });
})();
