// The account dashboard (server-rendered pages under /dashboard) for `faxstack serve`.
export { registerDashboard } from './routes.js';
export type { DashboardOptions } from './kit.js';
