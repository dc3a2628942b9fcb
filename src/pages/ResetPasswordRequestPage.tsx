import { Alert, Anchor, Button, Stack, Text, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { IconMailCheck } from '@tabler/icons-react';
import { useState } from 'react';
import { Link } from 'wouter';
import { isResetRequestEmail, RESET_REQUEST_SENT_MESSAGE, SERVER_UNAVAILABLE_MESSAGE } from '../../models/auth';
import { useApi } from '../api/ApiContext';
import { apiErrorMessages } from '../api/errors';
import { AuthCardHeader } from '../components/AuthCardHeader';
import { FailureAlert } from '../components/FailureAlert';
import { SignInAreaGate } from '../session/SignInAreaGate';

type RequestState = { status: 'editing' } | { status: 'sending' } | { status: 'sent' } | { status: 'failed'; message: string };

export function ResetPasswordRequestPage() {
  return (
    <SignInAreaGate>
      <ResetPasswordRequestForm />
    </SignInAreaGate>
  );
}

/** POST /users/password: the answer is the same whether or not the address has an account. */
function ResetPasswordRequestForm() {
  const client = useApi();
  const [state, setState] = useState<RequestState>({ status: 'editing' });
  const form = useForm({ mode: 'controlled', initialValues: { email: '' } });
  const canSend = isResetRequestEmail(form.values.email);

  const handleSubmit = form.onSubmit(async ({ email }) => {
    if (!isResetRequestEmail(email)) return;
    setState({ status: 'sending' });
    try {
      const { response, error } = await client.POST('/users/password', { body: { user: { email: email.trim() } } });
      setState(response.ok ? { status: 'sent' } : { status: 'failed', message: apiErrorMessages(error)[0] ?? SERVER_UNAVAILABLE_MESSAGE });
    } catch {
      setState({ status: 'failed', message: SERVER_UNAVAILABLE_MESSAGE });
    }
  });

  if (state.status === 'sent') {
    return (
      <Stack gap="lg">
        <AuthCardHeader title="Check your inbox" icon={IconMailCheck} />
        <Alert color="teal" variant="light" role="status">
          {RESET_REQUEST_SENT_MESSAGE}
        </Alert>
        <Button component={Link} href="/sign_in" variant="default" fullWidth>
          Back to sign in
        </Button>
      </Stack>
    );
  }

  return (
    <>
      <AuthCardHeader title="Reset your password" description="Enter the email you sign in with and we will send you a link to choose a new password." />
      <form onSubmit={handleSubmit} noValidate>
        <Stack gap="md">
          <FailureAlert messages={state.status === 'failed' ? [state.message] : []} />
          <TextInput
            label="Email"
            type="email"
            autoComplete="email"
            placeholder="you@company.com"
            {...form.getInputProps('email')}
          />
          <Button type="submit" disabled={!canSend} loading={state.status === 'sending'} fullWidth>
            Send reset link
          </Button>
          <Text size="sm" c="dimmed" ta="center">
            Remembered it?{' '}
            <Anchor component={Link} href="/sign_in">
              Back to sign in
            </Anchor>
          </Text>
        </Stack>
      </form>
    </>
  );
}
