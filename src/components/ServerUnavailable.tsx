import { Button, Center, Stack, Text, ThemeIcon, Title } from '@mantine/core';
import { IconCloudOff, IconRefresh } from '@tabler/icons-react';
import { selectFailureMessages } from '../../machines/auth/selectors';
import { shallowEqual } from '@xstate/react';
import { useAuthActor, useAuthSelector } from '../session/SessionContext';

/**
 * The session could not be checked because the server did not answer: say so and offer to
 * try again (the stored session is kept, nobody is signed out by a network blip).
 */
export function ServerUnavailable({ variant }: { variant: 'page' | 'card' }) {
  const actor = useAuthActor();
  const messages = useAuthSelector((snapshot) => selectFailureMessages(snapshot, 'restore'), shallowEqual);

  const handleRetry = () => actor.send({ type: 'auth.retry' });

  return (
    <Center mih={variant === 'page' ? '50vh' : undefined}>
      <Stack align="center" ta="center" gap="md" maw={460} role="alert">
        <ThemeIcon size={64} radius={32} variant="light" color="orange" aria-hidden>
          <IconCloudOff size={32} stroke={1.5} />
        </ThemeIcon>
        <Title order={variant === 'page' ? 1 : 2} fz={24}>
          Subscope is out of reach
        </Title>
        {messages.map((message) => (
          <Text key={message} c="dimmed">
            {message}
          </Text>
        ))}
        <Button leftSection={<IconRefresh size={16} />} onClick={handleRetry}>
          Try again
        </Button>
      </Stack>
    </Center>
  );
}
