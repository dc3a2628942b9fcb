import { Paper, SimpleGrid, Skeleton, Stack } from '@mantine/core';

/** Shown while a lazy page loads: the shape of a page header and its content. */
export function PageSkeleton() {
  return (
    <Stack gap="xl" aria-busy="true" aria-label="Loading page">
      <Stack gap="sm">
        <Skeleton height={32} width={240} radius="md" />
        <Skeleton height={14} width="45%" radius="md" />
      </Stack>
      <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="lg">
        {[0, 1, 2].map((index) => (
          <Paper key={index} withBorder p="lg">
            <Skeleton height={12} width="50%" mb="md" />
            <Skeleton height={28} width="70%" />
          </Paper>
        ))}
      </SimpleGrid>
      <Paper withBorder p="lg">
        <Skeleton height={16} width="30%" mb="lg" />
        <Skeleton height={260} radius="md" />
      </Paper>
    </Stack>
  );
}

/** The sign-in card's loading state. */
export function CardSkeleton() {
  return (
    <Stack gap="md" aria-busy="true" aria-label="Loading page">
      <Skeleton height={28} width="60%" mx="auto" />
      <Skeleton height={14} width="80%" mx="auto" />
      <Skeleton height={36} mt="md" />
      <Skeleton height={36} />
      <Skeleton height={36} />
    </Stack>
  );
}
