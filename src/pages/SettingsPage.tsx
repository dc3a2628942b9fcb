import { IconSettings } from '@tabler/icons-react';
import { ComingSoon } from '../components/ComingSoon';

export function SettingsPage() {
  return (
    <ComingSoon
      title="Settings"
      icon={IconSettings}
      description="Your account's currency and access, data sources and integrations, custom attributes and segmentation."
    />
  );
}
