import { App, Form, Modal, Select, type FormInstance } from 'antd'
import { useMutation, useQuery } from '@tanstack/react-query'
import { useEffect } from 'react'
import { useTranslation } from 'react-i18next'
import { switchChoicesQuery } from '../../api/user/queries'
import { refreshSession } from '../../services/session'
import { useSessionStore, type UserInfo } from '../../stores/session'

interface Props {
  open: boolean
  onClose: () => void
}

interface SwitchValues {
  deptId: string
  roleId: string
}

/** Department/role switch (only with website.switchMode): a token refresh with Dept-Id/Role-Id. */
export default function SwitchDialog({ open, onClose }: Props) {
  const { t } = useTranslation()
  const { message } = App.useApp()
  const userInfo = useSessionStore((s) => s.userInfo)
  const [form] = Form.useForm<SwitchValues>()
  const switching = useMutation({
    mutationFn: ({ deptId, roleId }: SwitchValues) => refreshSession(deptId, roleId),
    // Everything (menus, permissions, cached data) belongs to the new department and role.
    onSuccess: () => {
      void message.success(t('switchDialog.done'))
      onClose()
      window.location.reload()
    },
  })

  return (
    <Modal
      title={t('switchDialog.title')}
      open={open}
      onCancel={onClose}
      onOk={() => form.submit()}
      destroyOnHidden
    >
      <SwitchForm form={form} userInfo={userInfo} onFinish={(v) => switching.mutate(v)} />
    </Modal>
  )
}

/** Mounted while the dialog is open, so the choices are fetched each time it opens. */
function SwitchForm({
  form,
  userInfo,
  onFinish,
}: {
  form: FormInstance<SwitchValues>
  userInfo: UserInfo | null
  onFinish: (values: SwitchValues) => void
}) {
  const { t } = useTranslation()
  const choices = useQuery({
    ...switchChoicesQuery(userInfo?.user_id ?? ''),
    enabled: userInfo !== null,
  })
  const [depts, roles] = choices.data ?? [[], []]

  useEffect(() => {
    if (choices.data && userInfo)
      form.setFieldsValue({ deptId: userInfo.dept_id, roleId: userInfo.role_id })
  }, [choices.data, form, userInfo])

  return (
    <Form form={form} layout="vertical" onFinish={onFinish}>
      <Form.Item
        label={t('switchDialog.dept')}
        name="deptId"
        rules={[{ required: true, message: t('switchDialog.deptRequired') }]}
      >
        <Select options={depts.map((d) => ({ value: d.id, label: d.deptName }))} />
      </Form.Item>
      <Form.Item
        label={t('switchDialog.role')}
        name="roleId"
        rules={[{ required: true, message: t('switchDialog.roleRequired') }]}
      >
        <Select options={roles.map((r) => ({ value: r.id, label: r.roleName }))} />
      </Form.Item>
    </Form>
  )
}
