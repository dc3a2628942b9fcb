import { ActionIcon, Tooltip, useComputedColorScheme, useMantineColorScheme } from '@mantine/core';
import { IconMoon, IconSun } from '@tabler/icons-react';

/** Switches between light and dark; the choice is kept by Mantine's colour scheme manager. */
export function ColorSchemeToggle() {
  const { setColorScheme } = useMantineColorScheme();
  const computed = useComputedColorScheme('light', { getInitialValueInEffect: false });
  const next = computed === 'dark' ? 'light' : 'dark';
  const label = next === 'dark' ? 'Switch to dark mode' : 'Switch to light mode';

  const handleToggle = () => setColorScheme(next);

  return (
    <Tooltip label={label}>
      <ActionIcon variant="default" size="lg" radius="md" aria-label={label} onClick={handleToggle}>
        {next === 'dark' ? <IconMoon size={18} stroke={1.7} /> : <IconSun size={18} stroke={1.7} />}
      </ActionIcon>
    </Tooltip>
  );
}
