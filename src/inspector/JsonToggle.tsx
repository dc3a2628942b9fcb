import { Code, UnstyledButton } from '@mantine/core';
import { useState } from 'react';
import { formatJson } from './format';
import classes from './InspectorPanel.module.css';

/** A collapsed JSON value: a toggle, and the formatted JSON once opened. */
export function JsonToggle({ value, label }: { value: unknown; label: string }) {
  const [open, setOpen] = useState(false);
  const keys = value !== null && typeof value === 'object' ? Object.keys(value).length : 1;
  return (
    <>
      <UnstyledButton className={classes.toggle} aria-expanded={open} aria-label={`${open ? 'Hide' : 'Show'} ${label}`} onClick={() => setOpen((o) => !o)}>
        {open ? '▾' : '▸'} {keys} {keys === 1 ? 'field' : 'fields'}
      </UnstyledButton>
      {open ? (
        <Code block className={classes.json}>
          {formatJson(value)}
        </Code>
      ) : null}
    </>
  );
}
