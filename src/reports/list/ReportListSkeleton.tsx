import { Card, Group, SimpleGrid, Skeleton, Stack } from '@mantine/core';

/** The shape of the report cards while the list loads. */
export function ReportListSkeleton() {
  return (
    <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }} spacing="lg" aria-busy="true" aria-label="Loading reports">
      {[0, 1, 2].map((index) => (
        <Card key={index}>
          <Stack gap="sm">
            <Group justify="space-between" wrap="nowrap">
              <Skeleton height={20} width="60%" />
              <Skeleton height={18} width={72} radius="xl" />
            </Group>
            <Skeleton height={12} width="55%" />
            <Skeleton height={12} />
            <Skeleton height={12} width="80%" />
            <Group gap={6} mt="xs">
              <Skeleton height={18} width={56} radius="sm" />
              <Skeleton height={18} width={64} radius="sm" />
            </Group>
          </Stack>
        </Card>
      ))}
    </SimpleGrid>
  );
}
