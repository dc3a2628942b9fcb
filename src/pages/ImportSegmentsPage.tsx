import { Badge, Button, Paper, Stack, Text, ThemeIcon, Title } from '@mantine/core';
import { IconArrowRight, IconTags } from '@tabler/icons-react';
import { Link, useSearch } from 'wouter';
import { PageHeader } from '../components/PageHeader';
import { SegmentsImport } from '../imports/SegmentsImport';

/** The query parameter naming the custom attribute (customer segment) whose values are imported. */
const SEGMENT_QUERY_PARAM = 'segment';

/** The attribute of `?segment=<id>`, or null. */
function segmentIdOf(search: string): string | null {
  const id = new URLSearchParams(search).get(SEGMENT_QUERY_PARAM)?.trim();
  return id ? id : null;
}

/**
 * /import-segments: import the values of one custom attribute from a CSV file (spec, second
 * document: Settings → Custom attributes → 'Import attribute values').
 *
 * The API has no list of customer segments yet (src/api/schema.ts has no /customer_segments
 * call), so the attribute comes from the address, `?segment=<id>`, as the Settings action will
 * link it; without one, the page says where to choose the attribute.
 */
export function ImportSegmentsPage() {
  const segmentId = segmentIdOf(useSearch());

  return (
    <>
      <PageHeader
        title="Import attribute values"
        description="Upload a CSV file of customer IDs and values, match its columns and import the values into a custom attribute."
        badge={
          segmentId ? (
            <Badge variant="light" size="lg" radius="sm" aria-label={`Attribute ${segmentId}`} style={{ textTransform: 'none' }}>
              Attribute {segmentId}
            </Badge>
          ) : null
        }
      />
      {segmentId ? <SegmentsImport key={segmentId} segmentId={segmentId} /> : <NoAttributeChosen />}
    </>
  );
}

/** The empty state without `?segment=`: the attribute is chosen in Settings. */
function NoAttributeChosen() {
  return (
    <Paper withBorder p={{ base: 'xl', sm: 56 }} style={{ borderStyle: 'dashed' }}>
      <Stack align="center" ta="center" gap="lg" maw={560} mx="auto">
        <ThemeIcon size={80} radius={40} variant="light" aria-hidden>
          <IconTags size={40} stroke={1.5} />
        </ThemeIcon>
        <Title order={2} fz="xl">
          Choose an attribute first
        </Title>
        <Text size="lg" lh={1.5}>
          Values are imported into one custom attribute at a time. In Settings → Custom attributes, pick the attribute and choose
          &apos;Import attribute values&apos;.
        </Text>
        <Button component={Link} href="/settings" rightSection={<IconArrowRight size={16} />}>
          Go to Settings
        </Button>
      </Stack>
    </Paper>
  );
}
