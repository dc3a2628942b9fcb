import { Anchor } from '@mantine/core';
import { IconUserPlus } from '@tabler/icons-react';
import { Link } from 'wouter';
import { ComingSoon } from '../components/ComingSoon';

export function SignUpPage() {
  return (
    <ComingSoon
      variant="card"
      title="Create your account"
      icon={IconUserPlus}
      description="Sign up with your email and continue to Getting started to bring in your data."
    >
      <Anchor component={Link} href="/sign_in" size="sm">
        Already have an account? Sign in
      </Anchor>
    </ComingSoon>
  );
}
