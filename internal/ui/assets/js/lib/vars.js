// Variable references: Nomad's UI names a variable <path>@<namespace>.

import { enc } from './api.js';

export function splitVar(s) {
  const at = s.lastIndexOf('@');
  return at > 0 ? { path: s.slice(0, at), ns: s.slice(at + 1) } : { path: s, ns: 'default' };
}
export const varPath = (path, ns) => `/ui/variables/var/${path.split('/').map(enc).join('/')}@${enc(ns || 'default')}`;
export const varAPI = (path, ns) => `/v1/var/${path.split('/').map(enc).join('/')}?namespace=${enc(ns || 'default')}`;
