import { Button, Center, Stack, Text, ThemeIcon, Title } from '@mantine/core';
import { IconArrowLeft, IconMapQuestion } from '@tabler/icons-react';
import { Link } from 'wouter';

export function NotFoundPage() {
  return (
    <Center mih="55vh">
      <Stack align="center" ta="center" gap="md" maw={460}>
        <ThemeIcon size={72} radius={36} variant="light" color="gray" aria-hidden>
          <IconMapQuestion size={36} stroke={1.5} />
        </ThemeIcon>
        <Text c="dimmed" fw={700} fz="sm" tt="uppercase" lts={1}>
          Error 404
        </Text>
        <Title order={1} fz={30}>
          Page not found
        </Title>
        <Text c="dimmed">The page you are looking for does not exist or has moved. Check the address, or head back to your reports.</Text>
        <Button component={Link} href="/" leftSection={<IconArrowLeft size={16} />} mt="xs">
          Back to reports
        </Button>
      </Stack>
    </Center>
  );
}
