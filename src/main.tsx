import '@mantine/core/styles.css';
import '@mantine/notifications/styles.css';
import '@mantine/dates/styles.css';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { api } from './api/client';
import { prefetchReportOf } from './reports/reportPrefetch';

const container = document.getElementById('root');
if (!container) throw new Error('The #root element is missing from index.html');

// A report's data travels while the app starts (src/reports/reportPrefetch.ts).
prefetchReportOf(window.location.pathname, api, () => import('./pages/ReportPage'));

createRoot(container).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
