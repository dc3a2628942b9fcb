import { Anchor, Group } from '@mantine/core';
import { IconLogin } from '@tabler/icons-react';
import { Link } from 'wouter';
import { ComingSoon } from '../components/ComingSoon';

export function SignInPage() {
  return (
    <ComingSoon variant="card" title="Sign in" icon={IconLogin} description="Sign in to Subscope with your email and password.">
      <Group justify="center" gap="lg">
        <Anchor component={Link} href="/sign_up" size="sm">
          Create an account
        </Anchor>
        <Anchor component={Link} href="/reset_password" size="sm">
          Forgot your password?
        </Anchor>
      </Group>
    </ComingSoon>
  );
}
