import { IconUsersGroup } from '@tabler/icons-react';
import { ComingSoon } from '../components/ComingSoon';

export function UsersPage() {
  return (
    <ComingSoon
      title="Users"
      icon={IconUsersGroup}
      description="See who has access to your account and invite colleagues by email."
    />
  );
}
