import { localStorageColorSchemeManager, MantineProvider } from '@mantine/core';
import { ModalsProvider } from '@mantine/modals';
import { Notifications } from '@mantine/notifications';
import { QueryClientProvider } from '@tanstack/react-query';
import type { QueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { ReactNode } from 'react';
import { createQueryClient } from './api/queries';
import notificationClasses from './notifications/Notifications.module.css';
import { cssVariablesResolver, theme } from './theme';

/** Must match the key read by the colour scheme script in index.html. */
export const COLOR_SCHEME_STORAGE_KEY = 'subscope.colorScheme';

const colorSchemeManager = localStorageColorSchemeManager({ key: COLOR_SCHEME_STORAGE_KEY });

interface AppProvidersProps {
  /** 'test' turns off transitions and portals (jsdom tests). */
  env?: 'default' | 'test';
  /** The cache of server state (a test gives each render its own); by default one per mount. */
  queryClient?: QueryClient;
  children: ReactNode;
}

/** Theme (light, dark or the system's), toasts, modals and the server state cache. The session lives inside the router (App). */
export function AppProviders({ env = 'default', queryClient: given, children }: AppProvidersProps) {
  const [ownClient] = useState(createQueryClient);
  return (
    <QueryClientProvider client={given ?? ownClient}>
      <MantineProvider
        theme={theme}
        cssVariablesResolver={cssVariablesResolver}
        defaultColorScheme="auto"
        colorSchemeManager={colorSchemeManager}
        env={env}
      >
        {/* Above modals and drawers (200), below menus and popovers (300): a toast never hides the user menu. */}
        <Notifications position="top-right" zIndex={250} classNames={{ root: notificationClasses.root }} />
        <ModalsProvider>{children}</ModalsProvider>
      </MantineProvider>
    </QueryClientProvider>
  );
}
