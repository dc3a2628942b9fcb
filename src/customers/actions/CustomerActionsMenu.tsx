import { Box, Button, Menu, Text, VisuallyHidden } from '@mantine/core';
import { modals } from '@mantine/modals';
import { IconArrowMerge, IconCheck, IconChevronDown, IconHierarchy2, IconLinkOff, IconTrash } from '@tabler/icons-react';
import { useState } from 'react';
import { REMOVE_CUSTOMER_FAILURE_MESSAGE } from '../../../models/customers';
import { DEFAULT_ERROR_TOAST } from '../../notifications/toast';
import type { Customer, CustomerServices } from '../customersApi';
import { AssignParentDrawer } from './AssignParentDrawer';
import { MergeCustomerDrawer } from './MergeCustomerDrawer';
import { useCustomerChange } from './useCustomerChange';

export interface CustomerActionsMenuProps {
  customer: Customer;
  services: CustomerServices;
  /** The customer was deleted: the drawer closes. */
  onDeleted: () => void;
}

/** Which of the actions' own drawers is open. */
type ActionPanel = 'merge' | 'assignParent' | null;

/**
 * The customer drawer's actions (spec: 'Details: {name}' actions menu): Merge customer, Assign
 * parent (only without children), Remove parent (only with a parent), Exclude from metrics
 * calculation (ticked while excluded) and Delete customer (danger, confirmed). Each one changes
 * the account's numbers; the server marks the reports stale and recalculates them.
 */
export function CustomerActionsMenu({ customer, services, onDeleted }: CustomerActionsMenuProps) {
  const [panel, setPanel] = useState<ActionPanel>(null);
  const excluded = !customer.include_in_calculations_by_default;

  const update = useCustomerChange({
    call: (change: { parent_id?: null; include_in_calculations_by_default?: boolean }) => services.update(customer.id, change),
    failure: DEFAULT_ERROR_TOAST,
  });
  const remove = useCustomerChange({
    call: (id: string) => services.remove(id),
    failure: REMOVE_CUSTOMER_FAILURE_MESSAGE,
    gone: (id) => [id],
    onDone: onDeleted,
  });

  const handleToggleExclusion = () => void update.run({ include_in_calculations_by_default: excluded });
  const handleRemoveParent = () => void update.run({ parent_id: null });
  const handleDelete = () => {
    modals.openConfirmModal({
      title: 'Delete customer',
      children: (
        <Text size="sm">
          Delete “{customer.name}”? Its payments no longer count in any report and its children lose their parent. This cannot be undone.
        </Text>
      ),
      labels: { confirm: 'Delete customer', cancel: 'Cancel' },
      confirmProps: { color: 'red' },
      onConfirm: () => void remove.run(customer.id),
    });
  };

  return (
    <>
      <Menu position="bottom-end" withinPortal shadow="md" width={280}>
        <Menu.Target>
          <Button variant="default" size="xs" rightSection={<IconChevronDown size={14} />} loading={update.pending || remove.pending} aria-label="Customer actions">
            Actions
          </Button>
        </Menu.Target>
        <Menu.Dropdown>
          <Menu.Item leftSection={<IconArrowMerge size={16} />} onClick={() => setPanel('merge')}>
            Merge customer
          </Menu.Item>
          {customer.children_ids.length === 0 && (
            <Menu.Item leftSection={<IconHierarchy2 size={16} />} onClick={() => setPanel('assignParent')}>
              Assign parent
            </Menu.Item>
          )}
          {customer.parent_id !== null && (
            <Menu.Item leftSection={<IconLinkOff size={16} />} onClick={handleRemoveParent}>
              Remove parent
            </Menu.Item>
          )}
          {/* A toggle: ticked while the customer is excluded (Mantine's menu items are always
              role menuitem, so the state is also said in words). */}
          <Menu.Item leftSection={excluded ? <IconCheck size={16} aria-hidden /> : <Box w={16} />} onClick={handleToggleExclusion} data-checked={excluded || undefined}>
            Exclude from metrics calculation
            {excluded && <VisuallyHidden>{' (on)'}</VisuallyHidden>}
          </Menu.Item>
          <Menu.Divider />
          <Menu.Item color="red" leftSection={<IconTrash size={16} />} onClick={handleDelete}>
            Delete customer
          </Menu.Item>
        </Menu.Dropdown>
      </Menu>
      <MergeCustomerDrawer opened={panel === 'merge'} customer={customer} services={services} onClose={() => setPanel(null)} />
      <AssignParentDrawer opened={panel === 'assignParent'} customer={customer} services={services} onClose={() => setPanel(null)} />
    </>
  );
}
