import { Anchor, Button, PasswordInput, Stack, Text } from '@mantine/core';
import { useForm } from '@mantine/form';
import { shallowEqual } from '@xstate/react';
import { Link, useParams } from 'wouter';
import { selectFailure, selectFailureMessages, selectIsSubmitting } from '../../machines/auth/selectors';
import { newPasswordStruct, PASSWORD_MIN_LENGTH } from '../../models/auth';
import type { NewPasswordValues } from '../../models/auth';
import { AuthCardHeader } from '../components/AuthCardHeader';
import { FailureAlert } from '../components/FailureAlert';
import { superstructResolver } from '../forms/superstructResolver';
import { SignInAreaGate } from '../session/SignInAreaGate';
import { useAuthActor, useAuthSelector } from '../session/SessionContext';

export function ResetPasswordPage() {
  return (
    <SignInAreaGate>
      <ResetPasswordForm />
    </SignInAreaGate>
  );
}

/** PUT /users/password with the link's token; success signs in and goes to '/'. */
function ResetPasswordForm() {
  const { token = '' } = useParams<{ token: string }>();
  const actor = useAuthActor();
  const submitting = useAuthSelector((snapshot) => selectIsSubmitting(snapshot, 'resetPassword'));
  const failure = useAuthSelector((snapshot) => selectFailureMessages(snapshot, 'resetPassword'), shallowEqual);
  const tokenRefused = useAuthSelector((snapshot) => 'reset_password_token' in (selectFailure(snapshot, 'resetPassword')?.fields ?? {}));
  const form = useForm<NewPasswordValues>({
    mode: 'uncontrolled',
    initialValues: { password: '', password_confirmation: '' },
    validate: superstructResolver(newPasswordStruct),
  });

  const handleSubmit = form.onSubmit(({ password, password_confirmation }) => {
    actor.send({ type: 'auth.resetPassword', request: { token, password, passwordConfirmation: password_confirmation } });
  });

  return (
    <>
      <AuthCardHeader title="Choose a new password" description="After saving it you are signed in." />
      <form onSubmit={handleSubmit} noValidate>
        <Stack gap="md">
          <FailureAlert messages={failure}>
            {tokenRefused ? (
              <Anchor component={Link} href="/reset_password" size="sm" display="block" mt={6}>
                Request a new link
              </Anchor>
            ) : null}
          </FailureAlert>
          <PasswordInput
            label="New password"
            autoComplete="new-password"
            description={`At least ${PASSWORD_MIN_LENGTH} characters`}
            key={form.key('password')}
            {...form.getInputProps('password')}
          />
          <PasswordInput
            label="Confirm new password"
            autoComplete="new-password"
            key={form.key('password_confirmation')}
            {...form.getInputProps('password_confirmation')}
          />
          <Button type="submit" loading={submitting} fullWidth mt="xs">
            Save password and sign in
          </Button>
          <Text size="sm" c="dimmed" ta="center">
            <Anchor component={Link} href="/sign_in">
              Back to sign in
            </Anchor>
          </Text>
        </Stack>
      </form>
    </>
  );
}
