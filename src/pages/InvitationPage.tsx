import { IconMailOpened } from '@tabler/icons-react';
import { ComingSoon } from '../components/ComingSoon';

export function InvitationPage() {
  return (
    <ComingSoon
      variant="card"
      title="Accept your invitation"
      icon={IconMailOpened}
      description="Join your colleagues' account by choosing a password for the invited email address."
    />
  );
}
