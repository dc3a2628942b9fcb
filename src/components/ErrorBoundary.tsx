import { Component } from 'react';
import type { ErrorInfo, ReactNode } from 'react';
import { Alert, Button, Center, Group, Paper, Stack, Text, ThemeIcon, Title } from '@mantine/core';
import { IconAlertTriangle, IconRefresh } from '@tabler/icons-react';

interface ErrorBoundaryProps {
  /** What to show instead of the children once one of them throws while rendering. */
  fallback: (reset: () => void) => ReactNode;
  /** When this value changes (the path, say), a caught error is forgotten and the children render again. */
  resetKey?: unknown;
  children: ReactNode;
}

interface ErrorBoundaryState {
  error: Error | null;
  resetKey: unknown;
}

/** Catches render errors below it so the user never sees a blank screen. */
export class ErrorBoundary extends Component<ErrorBoundaryProps, ErrorBoundaryState> {
  override state: ErrorBoundaryState = { error: null, resetKey: this.props.resetKey };

  static getDerivedStateFromError(error: Error): Partial<ErrorBoundaryState> {
    return { error };
  }

  static getDerivedStateFromProps(
    props: ErrorBoundaryProps,
    state: ErrorBoundaryState,
  ): Partial<ErrorBoundaryState> | null {
    if (Object.is(props.resetKey, state.resetKey)) return null;
    return { error: null, resetKey: props.resetKey };
  }

  override componentDidCatch(error: Error, info: ErrorInfo): void {
    console.error('Render error caught by ErrorBoundary', error, info.componentStack);
  }

  private readonly reset = () => this.setState({ error: null });

  override render(): ReactNode {
    if (this.state.error) return this.props.fallback(this.reset);
    return this.props.children;
  }
}

function handleReload() {
  window.location.reload();
}

/** The app-level fallback: a friendly message and a way out. */
export function AppErrorFallback({ onRetry }: { onRetry: () => void }) {
  return (
    <Center mih="60vh" p="md">
      <Paper withBorder p="xl" maw={480} w="100%">
        <Stack align="center" ta="center" gap="md">
          <ThemeIcon size={56} radius="xl" color="red" variant="light" aria-hidden>
            <IconAlertTriangle size={28} stroke={1.6} />
          </ThemeIcon>
          <Title order={1} fz={24}>
            Something went wrong
          </Title>
          <Text c="dimmed">
            This page ran into a problem and could not be shown. Reloading usually fixes it; your data is safe.
          </Text>
          <Group justify="center" gap="sm">
            <Button leftSection={<IconRefresh size={16} />} onClick={handleReload}>
              Reload page
            </Button>
            <Button variant="default" onClick={onRetry}>
              Try again
            </Button>
          </Group>
        </Stack>
      </Paper>
    </Center>
  );
}

export function AppErrorBoundary({ resetKey, children }: { resetKey?: unknown; children: ReactNode }) {
  return (
    <ErrorBoundary resetKey={resetKey} fallback={(reset) => <AppErrorFallback onRetry={reset} />}>
      {children}
    </ErrorBoundary>
  );
}

export const SECTION_RENDER_ERROR_MESSAGE = 'Something went wrong and we could not render this section';

/** Wraps one report section: a section that fails to render leaves the rest of the report usable. */
export function SectionErrorBoundary({ resetKey, children }: { resetKey?: unknown; children: ReactNode }) {
  return (
    <ErrorBoundary
      resetKey={resetKey}
      fallback={() => (
        <Alert color="red" variant="light" icon={<IconAlertTriangle size={18} />} role="alert">
          {SECTION_RENDER_ERROR_MESSAGE}
        </Alert>
      )}
    >
      {children}
    </ErrorBoundary>
  );
}
