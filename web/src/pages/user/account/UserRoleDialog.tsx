import { App, Form, Modal, TreeSelect } from 'antd'
import { useQuery } from '@tanstack/react-query'
import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import { roleTreeQuery } from '../../../api/system/queries'
import type { TreeNode } from '../../../api/tree'
import { grantUsers, type User } from '../../../api/user/admin'
import { splitIds } from '../../../utils/tree'

interface Props {
  users: User[]
  onClose: () => void
  onDone: () => void
}

const noNodes: TreeNode[] = []

/** Grants roles to the selected users (`POST grant?userIds=&roleIds=`), replacing theirs. */
export default function UserRoleDialog({ users, onClose, onDone }: Props) {
  const { t } = useTranslation()
  const { message } = App.useApp()
  const [form] = Form.useForm<{ roleIds: string[] }>()
  const nodes = useQuery(roleTreeQuery()).data ?? noNodes
  const [saving, setSaving] = useState(false)

  const save = async () => {
    let values: { roleIds: string[] }
    try {
      values = await form.validateFields()
    } catch {
      return
    }
    setSaving(true)
    try {
      await grantUsers(
        users.flatMap((user) => (user.id ? [user.id] : [])),
        values.roleIds,
      )
      void message.success(t('crud.success'))
      onDone()
    } catch {
      // shown by the request client
    } finally {
      setSaving(false)
    }
  }

  return (
    <Modal
      open
      title={t('user.roleTitle')}
      onCancel={onClose}
      onOk={() => void save()}
      confirmLoading={saving}
      okButtonProps={{ 'data-testid': 'user-role-ok' }}
      destroyOnHidden
    >
      <Form
        form={form}
        layout="vertical"
        data-testid="user-role-dialog"
        // One user: start from the roles it holds.
        initialValues={{ roleIds: users.length === 1 ? splitIds(users[0].roleId) : [] }}
      >
        <Form.Item
          name="roleIds"
          label={t('user.roleId')}
          rules={[{ required: true, message: t('user.roleIdRequired') }]}
        >
          <TreeSelect multiple treeData={nodes} treeDefaultExpandAll data-testid="user-role-ids" />
        </Form.Item>
      </Form>
    </Modal>
  )
}
