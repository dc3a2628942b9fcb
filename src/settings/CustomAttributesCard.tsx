import { Alert, Badge, Button, Card, Group, Skeleton, Stack, Text, ThemeIcon, Title } from '@mantine/core';
import { IconTableImport, IconTags } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'wouter';
import { useApi } from '../api/ApiContext';
import { ApiCallError, apiKey, queryState } from '../api/queries';

interface Segment {
  id: string;
  name: string;
  time_sensitive: boolean;
}

export const CUSTOM_ATTRIBUTES_FETCH_FAILURE = 'We could not fetch your custom attributes';

/**
 * The customer attributes of the account (GET /customer_segments), each with its 'Import
 * attribute values' action (/import-segments?segment=…). Adding and editing attributes come
 * with the segmentation settings.
 */
export function CustomAttributesCard() {
  const client = useApi();
  const state = queryState(
    useQuery({
      queryKey: apiKey('/customer_segments'),
      queryFn: async ({ signal }): Promise<Segment[]> => {
        const { data, response } = await client.GET('/customer_segments', { signal });
        if (!data) throw new ApiCallError('GET /customer_segments failed', response.status);
        return data.items;
      },
    }),
  );

  return (
    <Card>
      <Stack gap="md">
        <Group gap="sm" wrap="nowrap">
          <ThemeIcon size={40} radius="md" variant="light" aria-hidden>
            <IconTags size={22} stroke={1.6} />
          </ThemeIcon>
          <Stack gap={0}>
            <Title order={2} fz="md">
              Custom attributes
            </Title>
            <Text size="sm" c="dimmed">
              Customer attributes such as plan or industry segment your reports.
            </Text>
          </Stack>
        </Group>
        {state.status === 'loading' ? (
          <Stack gap="xs" aria-label="Loading custom attributes">
            <Skeleton height={28} />
            <Skeleton height={28} />
          </Stack>
        ) : state.status === 'failed' ? (
          <Alert color="red" variant="light">
            {CUSTOM_ATTRIBUTES_FETCH_FAILURE}
          </Alert>
        ) : state.data.length === 0 ? (
          <Text size="sm" c="dimmed">
            No customer attributes yet.
          </Text>
        ) : (
          <Stack gap="xs" component="ul" style={{ listStyle: 'none', padding: 0, margin: 0 }}>
            {state.data.map((segment) => (
              <Group key={segment.id} component="li" justify="space-between" wrap="nowrap" gap="sm">
                <Group gap="xs" wrap="nowrap">
                  <Text size="sm" fw={500}>
                    {segment.name}
                  </Text>
                  <Badge size="xs" variant="light" color="gray">
                    Customer
                  </Badge>
                  {segment.time_sensitive ? (
                    <Badge size="xs" variant="light">
                      By month
                    </Badge>
                  ) : null}
                </Group>
                <Button
                  component={Link}
                  href={`/import-segments?segment=${encodeURIComponent(segment.id)}`}
                  size="compact-sm"
                  variant="subtle"
                  leftSection={<IconTableImport size={14} />}
                  aria-label={`Import attribute values of ${segment.name}`}
                >
                  Import attribute values
                </Button>
              </Group>
            ))}
          </Stack>
        )}
      </Stack>
    </Card>
  );
}
