import { Avatar, Badge, Button, EmptyState, Group, Paper, Skeleton, Stack, Table, Text } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { IconRefresh, IconUserPlus, IconUsersGroup } from '@tabler/icons-react';
import type { AccountUser } from '../../models/auth';
import { hasFullAccess, USERS_FETCH_FAILURE_MESSAGE } from '../../models/auth';
import { PageHeader } from '../components/PageHeader';
import { useSession } from '../session/SessionContext';
import { InviteUserDrawer } from '../users/InviteUserDrawer';
import { useAccountUsers } from '../users/useAccountUsers';

/** The account's users (GET /users) and 'Add user', which invites a colleague by e-mail. */
export function UsersPage() {
  const { state, reload } = useAccountUsers();
  const [drawerOpened, drawer] = useDisclosure(false);

  return (
    <>
      <PageHeader
        title="Users"
        description="Everyone with access to your account. Invite colleagues to build and share reports with you."
        actions={
          <Button leftSection={<IconUserPlus size={16} />} onClick={drawer.open}>
            Add user
          </Button>
        }
      />
      <Paper withBorder>
        {state.status === 'loading' ? <UsersSkeleton /> : null}
        {state.status === 'failed' ? (
          <EmptyState
            py={48}
            title="Users could not be loaded"
            description={USERS_FETCH_FAILURE_MESSAGE}
            icon={<IconUsersGroup size={28} stroke={1.6} />}
          >
            <Button variant="default" leftSection={<IconRefresh size={16} />} onClick={reload}>
              Try again
            </Button>
          </EmptyState>
        ) : null}
        {state.status === 'loaded' && state.users.length === 0 ? (
          <EmptyState
            py={48}
            title="No users yet"
            description="Invite a colleague to share your reports with them."
            icon={<IconUsersGroup size={28} stroke={1.6} />}
          >
            <Button leftSection={<IconUserPlus size={16} />} onClick={drawer.open}>
              Add user
            </Button>
          </EmptyState>
        ) : null}
        {state.status === 'loaded' && state.users.length > 0 ? <UsersTable users={state.users} /> : null}
      </Paper>
      <InviteUserDrawer opened={drawerOpened} onClose={drawer.close} />
    </>
  );
}

function UsersTable({ users }: { users: AccountUser[] }) {
  const { user: me } = useSession();
  return (
    <Table.ScrollContainer minWidth={560}>
      <Table verticalSpacing="sm" horizontalSpacing="lg" highlightOnHover aria-label="Users of your account">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Name</Table.Th>
            <Table.Th>Email</Table.Th>
            <Table.Th>Access</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {users.map((user) => (
            <Table.Tr key={user.id}>
              <Table.Td>
                <Group gap="sm" wrap="nowrap">
                  <Avatar name={user.name || user.email} color="initials" size={32} radius="xl" />
                  <Text fw={500} size="sm">
                    {user.name || '—'}
                  </Text>
                  {user.id === me?.id ? (
                    <Badge variant="light" color="gray" size="sm">
                      You
                    </Badge>
                  ) : null}
                  {user.invitation_pending ? (
                    <Badge variant="light" color="yellow" size="sm">
                      Invitation pending
                    </Badge>
                  ) : null}
                </Group>
              </Table.Td>
              <Table.Td>
                <Text size="sm" c="dimmed">
                  {user.email}
                </Text>
              </Table.Td>
              <Table.Td>
                <Text size="sm">{hasFullAccess(user) ? 'Full access' : 'Shared reports only'}</Text>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

function UsersSkeleton() {
  return (
    <Stack gap="md" p="lg" aria-busy="true" aria-label="Loading users">
      {[0, 1, 2].map((row) => (
        <Group key={row} gap="md" wrap="nowrap">
          <Skeleton circle height={32} />
          <Skeleton height={12} width="22%" />
          <Skeleton height={12} width="30%" />
          <Skeleton height={12} width="14%" ml="auto" />
        </Group>
      ))}
    </Stack>
  );
}
