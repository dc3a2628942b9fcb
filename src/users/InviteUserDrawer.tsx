import { Button, Drawer, Group, Stack, Text, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { IconSend } from '@tabler/icons-react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { INVITATION_SEND_FAILURE_MESSAGE, inviteUserStruct } from '../../models/auth';
import type { InviteUserValues } from '../../models/auth';
import { ADD_USER_DRAWER_WIDTH } from '../../models/constants';
import { useApi } from '../api/ApiContext';
import { apiFieldErrors } from '../api/errors';
import { accountUsersKey } from './useAccountUsers';
import { superstructResolver } from '../forms/superstructResolver';
import { toastError, toastSuccess } from '../notifications/toast';

interface InviteUserDrawerProps {
  opened: boolean;
  onClose: () => void;
  /** Called after the server accepted the invitation (the list of users is read again meanwhile). */
  onInvited?: () => void;
}

/** The confirmation once the server accepted an invitation. */
export const invitationSentMessage = (email: string) => `Invitation sent to ${email}`;

const initialValues: InviteUserValues = { name: '', email: '' };

/**
 * 'Add user': name and e-mail, 'Send invite' (POST /users {email, name}). The colleague gets an
 * e-mail with an invitation link; a failure keeps the drawer open with what was typed.
 */
export function InviteUserDrawer({ opened, onClose, onInvited }: InviteUserDrawerProps) {
  const client = useApi();
  const queryClient = useQueryClient();
  const form = useForm<InviteUserValues>({
    mode: 'uncontrolled',
    initialValues,
    validate: superstructResolver(inviteUserStruct),
  });
  // POST /users; the answer's failures stay with the form (field messages) and the toast.
  const invite = useMutation({
    mutationFn: async (body: InviteUserValues) => {
      const { response, error } = await client.POST('/users', { body });
      return { ok: response.ok, error };
    },
    onSuccess: ({ ok }) => {
      if (ok) void queryClient.invalidateQueries({ queryKey: accountUsersKey });
    },
  });

  const handleClose = () => {
    form.reset();
    onClose();
  };

  const handleSubmit = form.onSubmit(async ({ name, email }) => {
    const body = { name: name.trim(), email: email.trim() };
    try {
      const { ok, error } = await invite.mutateAsync(body);
      if (!ok) {
        form.setErrors(apiFieldErrors(error));
        toastError(INVITATION_SEND_FAILURE_MESSAGE);
        return;
      }
    } catch {
      toastError(INVITATION_SEND_FAILURE_MESSAGE);
      return;
    }
    toastSuccess(invitationSentMessage(body.email));
    handleClose();
    onInvited?.();
  });

  return (
    <Drawer
      opened={opened}
      onClose={handleClose}
      position="right"
      size={ADD_USER_DRAWER_WIDTH}
      title={
        <Text component="span" fw={650} fz="lg">
          Add user
        </Text>
      }
      padding="xl"
    >
      <form onSubmit={handleSubmit} noValidate>
        <Stack gap="md">
          <Text size="sm" c="dimmed">
            We will e-mail your colleague a link to join your account. The link is valid for 7 days.
          </Text>
          <TextInput label="Name" withAsterisk data-autofocus key={form.key('name')} {...form.getInputProps('name')} />
          <TextInput
            label="Email"
            type="email"
            withAsterisk
            key={form.key('email')}
            {...form.getInputProps('email')}
          />
          <Group justify="flex-end" mt="sm">
            <Button variant="default" onClick={handleClose}>
              Cancel
            </Button>
            <Button type="submit" leftSection={<IconSend size={16} />} loading={invite.isPending}>
              Send invite
            </Button>
          </Group>
        </Stack>
      </form>
    </Drawer>
  );
}
