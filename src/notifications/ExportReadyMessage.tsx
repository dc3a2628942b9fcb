import { Anchor, Stack, Text } from '@mantine/core';
import type { ReactNode } from 'react';

/** The export-complete toast's body: the message and its download action. */
export function ExportReadyMessage({ message, downloadUrl }: { message: ReactNode; downloadUrl: string }) {
  return (
    <Stack gap={4}>
      <Text size="sm">{message}</Text>
      <Anchor href={downloadUrl} size="sm" fw={600} download>
        Download
      </Anchor>
    </Stack>
  );
}
