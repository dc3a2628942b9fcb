import { Button, Card, Group, Stack, Text, ThemeIcon, Title } from '@mantine/core';
import { IconArrowRight, IconUsersGroup } from '@tabler/icons-react';
import { Link } from 'wouter';

/** The Users card: who shares the account, on the Users page. */
export function UsersCard() {
  return (
    <Card>
      <Stack gap="md" h="100%" justify="space-between">
        <Group gap="sm" wrap="nowrap">
          <ThemeIcon size={40} radius="md" variant="light" aria-hidden>
            <IconUsersGroup size={22} stroke={1.6} />
          </ThemeIcon>
          <Stack gap={0}>
            <Title order={3} fz="md">
              Users
            </Title>
            <Text size="sm" c="dimmed">
              See who has access to your account and invite colleagues.
            </Text>
          </Stack>
        </Group>
        <Button component={Link} href="/users" variant="light" rightSection={<IconArrowRight size={16} />} style={{ alignSelf: 'flex-start' }}>
          Manage users
        </Button>
      </Stack>
    </Card>
  );
}
