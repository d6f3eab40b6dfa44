// Helpers shared by the lobby and the game page: query, element building, JSON fetch.
export const $ = (sel) => document.querySelector(sel);

// A new element: el("td", {class: "x"}, "text", child) (null/undefined attributes skipped).
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v !== null && v !== undefined) node.setAttribute(k, v);
  }
  for (const c of children) node.append(c);
  return node;
}

// Fetch `url`; the parsed body (JSON or text), or an Error carrying the server's
// message (`body.error`) and the HTTP status.
export async function fetchBody(url, options = {}) {
  const r = await fetch(url, options);
  const isJson = (r.headers.get("content-type") || "").includes("json");
  const body = isJson ? await r.json() : await r.text();
  if (!r.ok) {
    const err = new Error((isJson && body.error) || r.statusText);
    err.status = r.status;
    throw err;
  }
  return body;
}
