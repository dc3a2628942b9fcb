import { Anchor, Button, Paper, Select, Skeleton, Stack, Text, ThemeIcon, Title } from '@mantine/core';
import { IconArrowRight, IconTags } from '@tabler/icons-react';
import type { ReactNode } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { ATTRIBUTES_FETCH_FAILURE } from '../../models/attributes';
import type { ObjectAttribute } from '../../models/attributes';
import { PageHeader } from '../components/PageHeader';
import { SegmentsImport } from '../imports/SegmentsImport';
import { useObjectAttributes } from '../settings/attributes/attributesApi';

/** The query parameter naming the custom attribute (customer segment) whose values are imported. */
const SEGMENT_QUERY_PARAM = 'segment';

/** The attribute of `?segment=<id>`, or null. */
function segmentIdOf(search: string): string | null {
  const id = new URLSearchParams(search).get(SEGMENT_QUERY_PARAM)?.trim();
  return id ? id : null;
}

/** The address of the import into one attribute. */
export function importSegmentsHref(segmentId: string): string {
  return `/import-segments?${new URLSearchParams({ [SEGMENT_QUERY_PARAM]: segmentId }).toString()}`;
}

/** Customer attributes as Select options: their segment (what the import fills) and name. */
function attributeOptions(attributes: readonly ObjectAttribute[]): { value: string; label: string }[] {
  return attributes.flatMap((attribute) => (attribute.object === 'customer' && attribute.segment_id ? [{ value: attribute.segment_id, label: attribute.name }] : []));
}

/**
 * /import-segments: import the values of one custom attribute from a CSV file (Settings →
 * Custom attributes → 'Import attribute values'). The attribute is `?segment=<id>`; a picker of
 * the customer attributes chooses it (or another one), and the address follows the choice.
 */
export function ImportSegmentsPage() {
  const segmentId = segmentIdOf(useSearch());
  const [, navigate] = useLocation();
  const attributes = useObjectAttributes();
  const options = attributeOptions(attributes.data ?? []);
  if (segmentId && !options.some((option) => option.value === segmentId)) {
    // Not (yet) among the list: the import still runs for it.
    options.unshift({ value: segmentId, label: attributes.data ? 'Unknown attribute' : 'Loading…' });
  }
  const failed = attributes.isError && !attributes.isFetching;

  const handleChoose = (value: string | null) => {
    if (value && value !== segmentId) navigate(importSegmentsHref(value));
  };

  const picker = (
    <Select
      label="Attribute"
      placeholder="Choose a customer attribute"
      data={options}
      value={segmentId}
      onChange={handleChoose}
      allowDeselect={false}
      searchable
      nothingFoundMessage="No such attribute"
      error={failed ? ATTRIBUTES_FETCH_FAILURE : undefined}
      comboboxProps={{ withinPortal: true }}
      w={280}
    />
  );

  return (
    <>
      <PageHeader
        title="Import attribute values"
        description="Upload a CSV file of customer IDs and values, match its columns and import the values into a custom attribute."
        actions={segmentId ? picker : null}
      />
      {segmentId ? (
        <SegmentsImport key={segmentId} segmentId={segmentId} />
      ) : (
        <ChooseAttribute picker={picker} loading={!attributes.data && !failed} none={attributes.data !== undefined && options.length === 0} />
      )}
    </>
  );
}

/** Without `?segment=`: pick the attribute here (or add one in Settings when there is none). */
function ChooseAttribute({ picker, loading, none }: { picker: ReactNode; loading: boolean; none: boolean }) {
  return (
    <Paper withBorder p={{ base: 'xl', sm: 56 }} style={{ borderStyle: 'dashed' }}>
      <Stack align="center" ta="center" gap="lg" maw={560} mx="auto">
        <ThemeIcon size={80} radius={40} variant="light" aria-hidden>
          <IconTags size={40} stroke={1.5} />
        </ThemeIcon>
        <Title order={2} fz="xl">
          {none ? 'No customer attributes yet' : 'Choose an attribute'}
        </Title>
        {none ? (
          <>
            <Text size="lg" lh={1.5}>
              Values are imported into a customer attribute. Add one in Settings → Custom attributes first.
            </Text>
            <Button component={Link} href="/settings" rightSection={<IconArrowRight size={16} />}>
              Go to Settings
            </Button>
          </>
        ) : (
          <>
            <Text size="lg" lh={1.5}>
              Values are imported into one customer attribute at a time. Which one do they belong to?
            </Text>
            {loading ? <Skeleton height={60} width={280} aria-label="Loading attributes" /> : <div style={{ textAlign: 'left' }}>{picker}</div>}
            <Anchor component={Link} href="/settings" size="sm">
              Manage attributes in Settings
            </Anchor>
          </>
        )}
      </Stack>
    </Paper>
  );
}
