import { Divider, Stack, Text, Title } from '@mantine/core';
import type { ReactNode } from 'react';

interface SettingsSectionProps {
  title: string;
  description: string;
  children: ReactNode;
}

/** One titled section of the Settings page (a landmark named by its title). */
export function SettingsSection({ title, description, children }: SettingsSectionProps) {
  const id = `settings-${title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
  return (
    <Stack component="section" gap="md" aria-labelledby={id}>
      <Stack gap={2}>
        <Title order={2} fz="lg" id={id}>
          {title}
        </Title>
        <Text size="sm" c="dimmed">
          {description}
        </Text>
      </Stack>
      {children}
      <Divider mt="lg" />
    </Stack>
  );
}
