import { Badge, Card, Divider, Group, Progress, SimpleGrid, Skeleton, Stack, Text, ThemeIcon, Title } from '@mantine/core';
import { IconRocket } from '@tabler/icons-react';
import { Fragment } from 'react';
import { formatMoney } from '../../reports/charts/format';
import { PLANS_FETCH_FAILURE, useCurrentPlan, usePlans } from './plansApi';
import type { CurrentPlan, Plan, PlanLimitKey } from './plansApi';
import { RetryAlert } from '../../components/RetryAlert';

const LIMITS: readonly { key: PlanLimitKey; label: string; one: string; many: string }[] = [
  { key: 'customers', label: 'Customers', one: 'customer', many: 'customers' },
  { key: 'users', label: 'Users', one: 'user', many: 'users' },
  { key: 'integrations', label: 'Integrations', one: 'integration', many: 'integrations' },
];

/** '$49 / month', or 'Free'. */
export function planPriceText(plan: Pick<Plan, 'monthly_price' | 'currency'>): string {
  return plan.monthly_price === 0 ? 'Free' : `${formatMoney(plan.monthly_price, plan.currency, 0)} / month`;
}

/** 'Up to 500 customers', 'Unlimited users', 'No integrations'. */
export function limitText(limit: number | null, one: string, many: string): string {
  if (limit === null) return `Unlimited ${many}`;
  if (limit === 0) return `No ${many}`;
  return `Up to ${limit.toLocaleString('en-US')} ${limit === 1 ? one : many}`;
}

/**
 * The Plan section: the account's plan with what it uses of each limit, and the other plans of
 * the catalogue (GET /plans, GET /plans/{current}).
 */
export function PlanSection() {
  const plans = usePlans();
  const current = useCurrentPlan(plans.data?.current_plan_id);
  const failed = (plans.isError && !plans.isFetching) || (current.isError && !current.isFetching);
  if (failed) {
    return (
      <RetryAlert
        message={PLANS_FETCH_FAILURE}
        onRetry={() => {
          void plans.refetch();
          if (plans.data) void current.refetch();
        }}
      />
    );
  }
  if (!plans.data || !current.data) {
    return (
      <SimpleGrid cols={{ base: 1, md: 2 }} spacing="lg" aria-label="Loading your plan">
        <Skeleton height={236} radius="lg" />
        <Skeleton height={236} radius="lg" />
      </SimpleGrid>
    );
  }
  const others = plans.data.items.filter((plan) => plan.id !== current.data.id);
  return (
    <SimpleGrid cols={{ base: 1, md: 2 }} spacing="lg">
      <CurrentPlanCard plan={current.data} />
      <Card>
        <Stack gap="md">
          <Stack gap={0}>
            <Title order={3} fz="md">
              Other plans
            </Title>
            <Text size="sm" c="dimmed">
              Need more room? Write to us and we will switch your plan.
            </Text>
          </Stack>
          {others.length === 0 ? (
            <Text size="sm" c="dimmed">
              You are on our largest plan.
            </Text>
          ) : (
            <Stack gap="sm" component="ul" style={{ listStyle: 'none', padding: 0, margin: 0 }} aria-label="Other plans">
              {others.map((plan, index) => (
                <Fragment key={plan.id}>
                  {index > 0 ? <Divider component="li" aria-hidden /> : null}
                  <Stack component="li" gap={4} aria-label={plan.name}>
                    <Group justify="space-between" wrap="nowrap" gap="sm">
                      <Text fw={600}>{plan.name}</Text>
                      <Text size="sm" fw={600} style={{ whiteSpace: 'nowrap' }}>
                        {planPriceText(plan)}
                      </Text>
                    </Group>
                    <Text size="sm" c="dimmed">
                      {LIMITS.map(({ key, one, many }) => limitText(plan.limits[key], one, many)).join(' · ')}
                    </Text>
                  </Stack>
                </Fragment>
              ))}
            </Stack>
          )}
        </Stack>
      </Card>
    </SimpleGrid>
  );
}

function CurrentPlanCard({ plan }: { plan: CurrentPlan }) {
  return (
    <Card aria-label="Current plan">
      <Stack gap="md">
        <Group justify="space-between" align="flex-start" wrap="nowrap" gap="md">
          <Group gap="sm" wrap="nowrap">
            <ThemeIcon size={40} radius="md" variant="light" aria-hidden>
              <IconRocket size={22} stroke={1.6} />
            </ThemeIcon>
            <Stack gap={0}>
              <Group gap="xs">
                <Title order={3} fz="md">
                  {plan.name}
                </Title>
                <Badge size="sm" variant="light">
                  Current plan
                </Badge>
              </Group>
              <Text size="sm" c="dimmed">
                {plan.description}
              </Text>
            </Stack>
          </Group>
          <Text fw={700} style={{ whiteSpace: 'nowrap' }}>
            {planPriceText(plan)}
          </Text>
        </Group>
        <Stack gap="sm">
          {LIMITS.map(({ key, label }) => (
            <LimitUsage key={key} label={label} limit={plan.limits[key]} used={plan.usage?.[key] ?? 0} />
          ))}
        </Stack>
      </Stack>
    </Card>
  );
}

function LimitUsage({ label, limit, used }: { label: string; limit: number | null; used: number }) {
  const percent = limit === null ? 0 : limit === 0 ? 100 : Math.min(100, (used / limit) * 100);
  const color = limit === null ? 'gray' : percent >= 100 ? 'red' : percent >= 80 ? 'orange' : undefined;
  const usedText = used.toLocaleString('en-US');
  const value = limit === null ? `${usedText} · unlimited` : `${usedText} of ${limit.toLocaleString('en-US')}`;
  return (
    <Stack gap={4}>
      <Group justify="space-between" gap="sm">
        <Text size="sm">{label}</Text>
        <Text size="sm" c="dimmed">
          {value}
        </Text>
      </Group>
      <Progress value={percent} color={color} size="sm" aria-label={`${label}: ${value}`} />
    </Stack>
  );
}
