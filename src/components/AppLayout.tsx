import { AppShell, Container } from '@mantine/core';
import type { ReactNode } from 'react';
import { InspectorProvider } from '../inspector/InspectorContext';
import { InspectorPanel } from '../inspector/InspectorPanel';
import classes from './AppLayout.module.css';
import { TopBar } from './TopBar';

const MAIN_CONTENT_ID = 'main-content';

/** The app shell: top bar and a page container of consistent width (and the state inspector's panel). */
export function AppLayout({ children }: { children: ReactNode }) {
  return (
    <InspectorProvider>
      <AppShell header={{ height: 64 }} padding={0}>
        <a href={`#${MAIN_CONTENT_ID}`} className={classes.skipLink}>
          Skip to content
        </a>
        <AppShell.Header>
          <TopBar />
        </AppShell.Header>
        <AppShell.Main id={MAIN_CONTENT_ID} tabIndex={-1} className={classes.main}>
          <Container size="xl" px={{ base: 'md', sm: 'xl' }} py={{ base: 'lg', sm: 40 }}>
            {children}
          </Container>
        </AppShell.Main>
      </AppShell>
      <InspectorPanel />
    </InspectorProvider>
  );
}
