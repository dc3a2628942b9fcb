import { Button, Card, Group, SimpleGrid, Skeleton, Stack, Text, ThemeIcon } from '@mantine/core';
import { IconChartPie, IconPlus } from '@tabler/icons-react';
import { useState } from 'react';
import { SEGMENTERS_FETCH_FAILURE } from '../../../models/segmentation';
import type { SegmentationDefinition } from '../../../models/segmentation';
import { queryState } from '../../api/queries';
import { SegmentationCard } from './SegmentationCard';
import { SegmentationDrawer } from './SegmentationDrawer';
import type { SegmentationEditing } from './SegmentationDrawer';
import { useSegmentationDefinitions, useSegmenterTypes } from './segmentationQueries';
import { RetryAlert } from '../../components/RetryAlert';

/**
 * Settings → Segmentation (the page titles the section): the account's segmentations (each with its attribute and how it
 * groups it: mappings, ranges or products; ranges are edited in place), and the drawer that
 * creates and edits them.
 */
export function SegmentationSection() {
  const definitions = useSegmentationDefinitions();
  const state = queryState(definitions);
  // The list names each segmentation's attribute; without the types it shows the raw ids.
  const types = useSegmenterTypes().data ?? [];
  const [editing, setEditing] = useState<SegmentationEditing | null>(null);

  const handleNew = () => setEditing({ definition: null, session: Date.now() });
  const handleEdit = (definition: SegmentationDefinition) => setEditing({ definition, session: Date.now() });
  const handleClose = () => setEditing(null);
  const empty = state.status === 'loaded' && state.data.length === 0;

  return (
    <Stack gap="md">
      {empty ? null : (
        <Group justify="flex-end">
          <Button leftSection={<IconPlus size={16} />} onClick={handleNew}>
            New segmentation
          </Button>
        </Group>
      )}
      {state.status === 'loading' ? (
        <SimpleGrid cols={{ base: 1, md: 2 }} spacing="lg" aria-label="Loading segmentations" aria-busy>
          <Skeleton height={150} radius="md" />
          <Skeleton height={150} radius="md" />
        </SimpleGrid>
      ) : state.status === 'failed' ? (
        <RetryAlert message={SEGMENTERS_FETCH_FAILURE} onRetry={() => void definitions.refetch()} />
      ) : state.data.length === 0 ? (
        <Card withBorder padding="xl" style={{ borderStyle: 'dashed' }}>
          <Stack align="center" gap="sm" ta="center">
            <ThemeIcon size={48} radius="xl" variant="light" aria-hidden>
              <IconChartPie size={24} stroke={1.6} />
            </ThemeIcon>
            <Text fw={600}>No segmentations yet</Text>
            <Text size="sm" c="dimmed" maw={480}>
              Split your charts by groups of an attribute&apos;s values, by ranges of a number (such as company size), or by products.
            </Text>
            <Button leftSection={<IconPlus size={16} />} onClick={handleNew}>
              New segmentation
            </Button>
          </Stack>
        </Card>
      ) : (
        <SimpleGrid cols={{ base: 1, md: 2 }} spacing="lg" component="ul" aria-label="Segmentations" style={{ listStyle: 'none', padding: 0, margin: 0 }}>
          {state.data.map((definition) => (
            <SegmentationCard key={definition.id} definition={definition} types={types} onEdit={() => handleEdit(definition)} />
          ))}
        </SimpleGrid>
      )}
      <SegmentationDrawer editing={editing} onClose={handleClose} />
    </Stack>
  );
}
