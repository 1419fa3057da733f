// panel-checks.mjs: what a user sees wrong in the viewer's panel, as lists
// for the browser tests to assert empty (helpers, not a test file).

// The choices of the segmented controls under `selector` that do not show
// whole: text cut by the label's width, or the label outside its control.
export function clippedChoices(page, selector) {
  return page.$$eval(`${selector} .seg label`, (labels) => labels.filter((l) => l.offsetParent !== null).filter((l) => {
    const r = l.getBoundingClientRect(), s = l.parentNode.getBoundingClientRect();
    return l.scrollWidth > l.clientWidth || r.left < s.left - 0.5 || r.right > s.right + 0.5 ||
      r.top < s.top - 0.5 || r.bottom > s.bottom + 0.5;
  }).map((l) => `${l.parentNode.id}: "${l.textContent}"`));
}

// The panel's visible group headings with no visible control under them.
export function emptyGroups(page) {
  return page.$$eval('#panel fieldset.group', (groups) => groups.filter((g) => g.offsetParent !== null &&
    ![...g.children].some((c) => c.tagName !== 'LEGEND' && c.offsetParent !== null)).map((g) => g.querySelector('legend').textContent));
}
