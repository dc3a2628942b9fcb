import { Badge, Button, Card, Group, Stack, Text, ThemeIcon, Title } from '@mantine/core';
import type { TablerIcon } from '@tabler/icons-react';
import { IconPlus } from '@tabler/icons-react';
import { useId } from 'react';
import { useButtonWiggle } from './useButtonWiggle';

interface TemplateCardProps {
  icon: TablerIcon;
  name: string;
  description: string;
  /** How many chart sections the report starts with. */
  sections: number;
  /** The button's accessible name: 'Create blank report', 'Create report from Cohorts'. */
  actionLabel: string;
  /** The title the new report gets. */
  reportTitle: string;
  /** This card's report is being created. */
  creating: boolean;
  /** Another card's report is being created. */
  disabled: boolean;
  /** Creates the report; resolves false when it could not be created (the button wiggles). */
  onCreate: () => Promise<boolean>;
}

/** One choice of the report library: the blank report or a template of sections. */
export function TemplateCard(props: TemplateCardProps) {
  const { icon: Icon, name, description, sections, actionLabel, reportTitle, creating, disabled, onCreate } = props;
  const { wiggle, wiggleProps } = useButtonWiggle();
  const titleId = useId();

  const handleClick = async () => {
    if (!(await onCreate())) wiggle();
  };

  return (
    <Card component="article" aria-labelledby={titleId}>
      <Stack gap="sm" h="100%">
        <Group justify="space-between" align="flex-start" wrap="nowrap">
          <ThemeIcon size={44} radius="md" variant="light" aria-hidden>
            <Icon size={24} stroke={1.6} />
          </ThemeIcon>
          <Badge variant="light" color="gray" size="sm">
            {sections === 0 ? 'No charts' : sections === 1 ? '1 chart' : `${sections} charts`}
          </Badge>
        </Group>
        <Title order={2} fz="lg" id={titleId}>
          {name}
        </Title>
        <Text c="dimmed" size="sm" style={{ flexGrow: 1 }}>
          {description}
        </Text>
        <Text size="xs" c="dimmed">
          Named “{reportTitle}”; rename it on the report.
        </Text>
        <Button
          leftSection={<IconPlus size={16} />}
          variant="light"
          loading={creating}
          disabled={disabled}
          onClick={() => void handleClick()}
          aria-label={actionLabel}
          style={{ alignSelf: 'flex-start' }}
          {...wiggleProps}
        >
          Create report
        </Button>
      </Stack>
    </Card>
  );
}
