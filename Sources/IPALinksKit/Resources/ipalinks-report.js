// The report page's only script (ipalinks inspect --format html): sorts tables when a header is clicked, and opens
// every <details> before printing. The page's Content-Security-Policy allows exactly this file, by its SHA-256,
// which HTMLReporter computes. It reads only the DOM and fetches nothing.
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
  // Printing (or saving as PDF) shows every app's details, not just their summaries.
  window.addEventListener('beforeprint', () => {
    for (const details of document.querySelectorAll('details')) details.open = true;
  });
})();
