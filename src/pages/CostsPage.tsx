import { IconCoin } from '@tabler/icons-react';
import { ComingSoon } from '../components/ComingSoon';

export function CostsPage() {
  return (
    <ComingSoon
      title="Costs"
      icon={IconCoin}
      description="Record your costs by date, invoice and segment, and edit or delete them as they change."
    />
  );
}
