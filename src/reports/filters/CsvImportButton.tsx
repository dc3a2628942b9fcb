import { ActionIcon, Button, Tooltip } from '@mantine/core';
import type { ButtonProps } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import type { ReactNode } from 'react';
import { useState } from 'react';
import { CsvImportDialog, useCsvImport } from '../../imports/CsvImportDialog';

interface CsvImportButtonProps extends Omit<ButtonProps, 'children'> {
  label: string;
  leftSection?: ReactNode;
  /** Shown as this icon alone, `label` its name and tooltip (a crowded action bar). */
  icon?: ReactNode;
}

/**
 * A button that opens the CSV import dialog of Settings → Import CSV. The import's machine
 * starts the first time the dialog opens (not with the page: a report page would otherwise look
 * for a stored import on every visit) and then lives as long as the button, so an import started
 * here goes on, and toasts its outcome, while the dialog is closed.
 */
export function CsvImportButton({ label, icon, ...buttonProps }: CsvImportButtonProps) {
  const [opened, { open, close }] = useDisclosure(false);
  const [started, setStarted] = useState(false);
  const onClick = () => {
    setStarted(true);
    open();
  };
  return (
    <>
      {icon ? (
        <Tooltip label={label}>
          <ActionIcon variant="default" size={36} aria-label={label} onClick={onClick}>
            {icon}
          </ActionIcon>
        </Tooltip>
      ) : (
        <Button {...buttonProps} onClick={onClick}>
          {label}
        </Button>
      )}
      {started ? <CsvImportHost opened={opened} onClose={close} /> : null}
    </>
  );
}

function CsvImportHost({ opened, onClose }: { opened: boolean; onClose(): void }) {
  const actor = useCsvImport();
  return <CsvImportDialog actor={actor} opened={opened} onClose={onClose} />;
}
