import { localStorageColorSchemeManager, MantineProvider } from '@mantine/core';
import { ModalsProvider } from '@mantine/modals';
import { Notifications } from '@mantine/notifications';
import type { ReactNode } from 'react';
import notificationClasses from './notifications/Notifications.module.css';
import { cssVariablesResolver, theme } from './theme';

/** Must match the key read by the colour scheme script in index.html. */
export const COLOR_SCHEME_STORAGE_KEY = 'subscope.colorScheme';

const colorSchemeManager = localStorageColorSchemeManager({ key: COLOR_SCHEME_STORAGE_KEY });

interface AppProvidersProps {
  /** 'test' turns off transitions and portals (jsdom tests). */
  env?: 'default' | 'test';
  children: ReactNode;
}

/** Theme (light, dark or the system's), toasts and modals. The session lives inside the router (App). */
export function AppProviders({ env = 'default', children }: AppProvidersProps) {
  return (
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
  );
}
