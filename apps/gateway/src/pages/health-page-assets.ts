import { SHELL_CSS } from './page-shell.js';

/**
 * The stylesheet of /health (served from /static/, no inline style). Each day's cell has a
 * colour and a text (title and hidden label), so the bar never relies on colour alone; the
 * colours keep a 3:1 contrast against the page.
 */
export const HEALTH_CSS = `${SHELL_CSS}h3 { font-size: 1.05rem; margin: 0; }
.overall { padding: 0.8rem 1rem; border-radius: 0.3rem; border-left: 0.5rem solid; font-weight: 600; }
.overall.ok { background: #e6f4ea; border-color: var(--ok); }
.overall.degraded { background: #fff4d6; border-color: #9a6700; }
.overall.down { background: #fde8ea; border-color: var(--danger); }
.state::before { content: ''; display: inline-block; width: 0.7rem; height: 0.7rem; border-radius: 50%; margin-right: 0.4rem; vertical-align: -0.05rem; }
.state.up::before { background: var(--ok); }
.state.down::before { background: var(--danger); }
.part { margin: 1.4rem 0; }
.part-head { display: flex; flex-wrap: wrap; justify-content: space-between; gap: 0 1rem; align-items: baseline; }
.summary { margin: 0.2rem 0 0.4rem; color: var(--muted); font-size: 0.9rem; }
ol.bar { list-style: none; display: flex; gap: 1px; margin: 0; padding: 0; height: 2.2rem; }
ol.bar li { flex: 1 1 0; min-width: 0; border-radius: 1px; }
.u-full { background: var(--ok); }
.u-high { background: #5aa86b; }
.u-mid { background: #c98a00; }
.u-low { background: var(--danger); }
.u-none { background: repeating-linear-gradient(135deg, #c9ced4 0 2px, #eef0f2 2px 4px); }
.axis { display: flex; justify-content: space-between; color: var(--muted); font-size: 0.8rem; margin-top: 0.2rem; }
.legend { display: flex; flex-wrap: wrap; gap: 0.3rem 1.2rem; padding: 0; list-style: none; font-size: 0.9rem; }
.legend span { display: inline-block; width: 0.9rem; height: 0.9rem; margin-right: 0.35rem; vertical-align: -0.1rem; }
`;
