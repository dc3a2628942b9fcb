import { Anchor, Button, PasswordInput, Stack, Text, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { shallowEqual } from '@xstate/react';
import { useState } from 'react';
import { Link, useSearch } from 'wouter';
import { selectFailureMessages, selectIsSubmitting } from '../../machines/auth/selectors';
import { PASSWORD_MIN_LENGTH, signUpStruct } from '../../models/auth';
import { AuthCardHeader } from '../components/AuthCardHeader';
import { FailureAlert } from '../components/FailureAlert';
import { superstructResolver } from '../forms/superstructResolver';
import { SignInAreaGate } from '../session/SignInAreaGate';
import { useAuthActor, useAuthSelector } from '../session/SessionContext';
import { readSignUpLink } from '../session/signUpLink';

interface SignUpFormValues {
  name: string;
  email: string;
  password: string;
}

export function SignUpPage() {
  return (
    <SignInAreaGate>
      <SignUpForm />
    </SignInAreaGate>
  );
}

function SignUpForm() {
  const actor = useAuthActor();
  const search = useSearch();
  // The link is read once: the ref stays even if the address bar changes while typing.
  const [link] = useState(() => readSignUpLink(search, window.location.hash));
  const submitting = useAuthSelector((snapshot) => selectIsSubmitting(snapshot, 'signUp'));
  const failure = useAuthSelector((snapshot) => selectFailureMessages(snapshot, 'signUp'), shallowEqual);
  const form = useForm<SignUpFormValues>({
    mode: 'uncontrolled',
    initialValues: { name: '', email: link.email, password: '' },
    validate: superstructResolver(signUpStruct),
  });

  const handleSubmit = form.onSubmit(({ name, email, password }) => {
    actor.send({
      type: 'auth.signUp',
      request: { name: name.trim() || undefined, email: email.trim(), password, marketingRef: link.marketingRef },
    });
  });

  return (
    <>
      <AuthCardHeader
        title="Create your account"
        description="Start with a demo report, then bring in your own subscription data."
      />
      <form onSubmit={handleSubmit} noValidate>
        <Stack gap="md">
          <FailureAlert messages={failure} title={failure.length > 1 ? 'Please check your details' : undefined} />
          <TextInput
            label="Name"
            description="Optional"
            autoComplete="name"
            placeholder="Ada Lovelace"
            key={form.key('name')}
            {...form.getInputProps('name')}
          />
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
            autoComplete="new-password"
            description={`At least ${PASSWORD_MIN_LENGTH} characters`}
            key={form.key('password')}
            {...form.getInputProps('password')}
          />
          <Button type="submit" loading={submitting} fullWidth mt="xs">
            Create account
          </Button>
          <Text size="sm" c="dimmed" ta="center">
            Already have an account?{' '}
            <Anchor component={Link} href="/sign_in">
              Sign in
            </Anchor>
          </Text>
        </Stack>
      </form>
    </>
  );
}
