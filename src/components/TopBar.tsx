import { Anchor, Avatar, Burger, Button, Drawer, Group, Loader, Menu, NavLink, Skeleton, Stack, Text, UnstyledButton } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import type { TablerIcon } from '@tabler/icons-react';
import {
  IconBug,
  IconChartBar,
  IconChevronDown,
  IconCoin,
  IconCreditCard,
  IconLogin,
  IconLogout,
  IconPlus,
  IconReceiptOff,
  IconRocket,
  IconSettings,
  IconUsers,
} from '@tabler/icons-react';
import { Link } from 'wouter';
import { hasFullAccess } from '../../models/auth';
import type { AuthUser } from '../../models/auth';
import { useInspector } from '../inspector/InspectorContext';
import { useHasRejectedInvoices } from '../invoices/invoicesApi';
import type { NavKey } from '../routes';
import { useCurrentRoute } from '../routes';
import { useCurrentPath } from '../session/currentPath';
import { useSession } from '../session/SessionContext';
import { ColorSchemeToggle } from './ColorSchemeToggle';
import { Logo } from './Logo';

interface NavItem {
  key: NavKey;
  label: string;
  href: string;
  icon: TablerIcon;
}

const mainNav: NavItem[] = [
  { key: 'reports', label: 'Reports', href: '/', icon: IconChartBar },
  { key: 'customers', label: 'Customers', href: '/customers', icon: IconUsers },
  { key: 'payments', label: 'Payments', href: '/payments', icon: IconCreditCard },
  { key: 'costs', label: 'Costs', href: '/costs', icon: IconCoin },
];

const rejectedInvoicesNav: NavItem = {
  key: 'invoices',
  label: 'Import rejected invoices',
  href: '/invoices',
  icon: IconReceiptOff,
};

interface TopBarProps {
  /** Shows 'Import rejected invoices'; by default when GET /invoice_items/status says some exist. */
  hasRejectedInvoices?: boolean;
}

/**
 * The app's top bar: brand, navigation for full-access users (a burger and drawer on small
 * screens), 'Create new report', the colour scheme toggle, and 'Sign in' or the user menu.
 */
export function TopBar({ hasRejectedInvoices }: TopBarProps) {
  const { user, status, signOut, requestSignIn } = useSession();
  const currentPath = useCurrentPath();
  const activeNav = useCurrentRoute()?.nav;
  const [drawerOpened, drawer] = useDisclosure(false);
  const fullAccess = hasFullAccess(user);
  const rejectedExist = useHasRejectedInvoices(fullAccess && hasRejectedInvoices === undefined);
  const navItems = (hasRejectedInvoices ?? rejectedExist) ? [...mainNav, rejectedInvoicesNav] : mainNav;

  const handleSignIn = () => {
    requestSignIn(currentPath);
  };

  return (
    <Group h="100%" px={{ base: 'md', sm: 'xl' }} justify="space-between" wrap="nowrap" gap="md">
      <Group gap="xl" wrap="nowrap">
        {fullAccess ? (
          <Burger
            hiddenFrom="md"
            size="sm"
            opened={drawerOpened}
            onClick={drawer.toggle}
            aria-label={drawerOpened ? 'Close navigation' : 'Open navigation'}
          />
        ) : null}
        <Anchor component={Link} href="/" c="inherit" underline="never" aria-label="Subscope, go to reports">
          <Logo />
        </Anchor>
        {fullAccess ? (
          <Group component="nav" aria-label="Main" gap={4} wrap="nowrap" visibleFrom="md">
            {navItems.map((item) => {
              const active = item.key === activeNav;
              return (
                <Button
                  key={item.key}
                  component={Link}
                  href={item.href}
                  variant={active ? 'light' : 'subtle'}
                  color={active ? 'brand' : 'gray'}
                  c={active ? undefined : 'var(--mantine-color-text)'}
                  // One weight for all: a bolder active item would be wider and push its neighbours.
                  fw={600}
                  aria-current={active ? 'page' : undefined}
                  px="sm"
                >
                  {item.label}
                </Button>
              );
            })}
          </Group>
        ) : null}
      </Group>

      <Group gap="sm" wrap="nowrap">
        {fullAccess ? (
          <Button component={Link} href="/reports/library" leftSection={<IconPlus size={16} />} visibleFrom="sm">
            Create new report
          </Button>
        ) : null}
        <ColorSchemeToggle />
        {status === 'pending' ? (
          <Skeleton circle height={34} aria-label="Checking your session" />
        ) : status === 'signingOut' ? (
          <Loader size={24} aria-label="Signing out" />
        ) : user ? (
          <UserMenu user={user} fullAccess={fullAccess} onSignOut={signOut} />
        ) : (
          <Button
            component={Link}
            href="/sign_in"
            variant="default"
            leftSection={<IconLogin size={16} />}
            onClick={handleSignIn}
          >
            Sign in
          </Button>
        )}
      </Group>

      {fullAccess ? (
        <Drawer
          opened={drawerOpened}
          onClose={drawer.close}
          size="xs"
          padding="md"
          hiddenFrom="md"
          title={<Logo />}
          aria-label="Navigation"
        >
          <Stack gap="md">
            <nav aria-label="Main">
              {navItems.map((item) => (
                <NavLink
                  key={item.key}
                  component={Link}
                  href={item.href}
                  label={item.label}
                  leftSection={<item.icon size={18} stroke={1.6} />}
                  active={item.key === activeNav}
                  aria-current={item.key === activeNav ? 'page' : undefined}
                  onClick={drawer.close}
                />
              ))}
            </nav>
            <Button component={Link} href="/reports/library" leftSection={<IconPlus size={16} />} onClick={drawer.close}>
              Create new report
            </Button>
          </Stack>
        </Drawer>
      ) : null}
    </Group>
  );
}

interface UserMenuProps {
  user: AuthUser;
  fullAccess: boolean;
  onSignOut: () => void;
}

function UserMenu({ user, fullAccess, onSignOut }: UserMenuProps) {
  const inspector = useInspector();
  return (
    <Menu position="bottom-end" width={240} shadow="md" withinPortal>
      <Menu.Target>
        <UnstyledButton aria-label="User menu" style={{ borderRadius: 'var(--mantine-radius-xl)' }}>
          <Group gap={6} wrap="nowrap">
            <Avatar name={user.name || user.email} color="initials" size={34} radius="xl" />
            <IconChevronDown size={14} stroke={1.8} />
          </Group>
        </UnstyledButton>
      </Menu.Target>
      <Menu.Dropdown>
        <Menu.Label>
          <Text size="sm" fw={600} c="var(--mantine-color-text)" truncate>
            {user.name || user.email}
          </Text>
          <Text size="xs" c="dimmed" truncate>
            {user.email}
          </Text>
        </Menu.Label>
        <Menu.Divider />
        <Menu.Item component={Link} href="/getting-started" leftSection={<IconRocket size={16} />}>
          Getting started
        </Menu.Item>
        {fullAccess ? (
          <Menu.Item component={Link} href="/settings" leftSection={<IconSettings size={16} />}>
            Settings
          </Menu.Item>
        ) : null}
        {inspector ? (
          <Menu.Item leftSection={<IconBug size={16} />} onClick={inspector.open}>
            Inspector
          </Menu.Item>
        ) : null}
        <Menu.Divider />
        <Menu.Item leftSection={<IconLogout size={16} />} onClick={onSignOut}>
          Sign out
        </Menu.Item>
      </Menu.Dropdown>
    </Menu>
  );
}
