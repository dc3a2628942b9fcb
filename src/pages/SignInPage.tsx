import { Alert, Anchor, Button, Group, PasswordInput, Stack, Text, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { IconClockExclamation } from '@tabler/icons-react';
import { shallowEqual } from '@xstate/react';
import { Link } from 'wouter';
import { selectFailureMessages, selectIsSessionExpired, selectIsSubmitting } from '../../machines/auth/selectors';
import type { AuthSnapshot } from '../../machines/auth/authMachine';
import { SESSION_EXPIRED_MESSAGE, signInStruct } from '../../models/auth';
import type { SignInValues } from '../../models/auth';
import { AuthCardHeader } from '../components/AuthCardHeader';
import { FailureAlert } from '../components/FailureAlert';
import { superstructResolver } from '../forms/superstructResolver';
import { SignInAreaGate } from '../session/SignInAreaGate';
import { useAuthActor, useAuthSelector } from '../session/SessionContext';

/** A refused sign-in, or a token link that did not work (which lands here). */
const selectSignInFailure = (snapshot: AuthSnapshot) => [
  ...selectFailureMessages(snapshot, 'signIn'),
  ...selectFailureMessages(snapshot, 'tokenSignIn'),
];

export function SignInPage() {
  return (
    <SignInAreaGate>
      <SignInForm />
    </SignInAreaGate>
  );
}

function SignInForm() {
  const actor = useAuthActor();
  const submitting = useAuthSelector((snapshot) => selectIsSubmitting(snapshot, 'signIn'));
  const expired = useAuthSelector(selectIsSessionExpired);
  const failure = useAuthSelector(selectSignInFailure, shallowEqual);
  const form = useForm<SignInValues>({
    mode: 'uncontrolled',
    initialValues: { email: '', password: '' },
    validate: superstructResolver(signInStruct),
  });

  const handleSubmit = form.onSubmit(({ email, password }) => {
    actor.send({ type: 'auth.signIn', request: { email: email.trim(), password } });
  });

  return (
    <>
      <AuthCardHeader title="Sign in" description="Welcome back. Sign in to see your reports." />
      <form onSubmit={handleSubmit} noValidate>
        <Stack gap="md">
          {expired ? (
            <Alert color="yellow" variant="light" icon={<IconClockExclamation size={18} />}>
              {SESSION_EXPIRED_MESSAGE}
            </Alert>
          ) : null}
          <FailureAlert messages={failure} />
          <TextInput
            label="Email"
            type="email"
            autoComplete="email"
            placeholder="you@company.com"
            key={form.key('email')}
            {...form.getInputProps('email')}
          />
          <PasswordInput
            label="Password"
            autoComplete="current-password"
            key={form.key('password')}
            {...form.getInputProps('password')}
          />
          <Group justify="flex-end" mt={-6}>
            <Anchor component={Link} href="/reset_password" size="sm">
              Forgot your password?
            </Anchor>
          </Group>
          <Button type="submit" loading={submitting} fullWidth>
            Sign in
          </Button>
          <Text size="sm" c="dimmed" ta="center">
            New to Subscope?{' '}
            <Anchor component={Link} href="/sign_up">
              Create an account
            </Anchor>
          </Text>
        </Stack>
      </form>
    </>
  );
}
