import { App, Form, Modal, Select } from 'antd'
import { useEffect, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { getDeptSelect, getRoleSelect, type DeptOption, type RoleOption } from '../../api/user'
import { refreshSession } from '../../services/session'
import { useSessionStore } from '../../stores/session'

interface Props {
  open: boolean
  onClose: () => void
}

/** Department/role switch (only with website.switchMode): a token refresh with Dept-Id/Role-Id. */
export default function SwitchDialog({ open, onClose }: Props) {
  const { t } = useTranslation()
  const { message } = App.useApp()
  const userInfo = useSessionStore((s) => s.userInfo)
  const [form] = Form.useForm<{ deptId: string; roleId: string }>()
  const [depts, setDepts] = useState<DeptOption[]>([])
  const [roles, setRoles] = useState<RoleOption[]>([])

  useEffect(() => {
    if (!open || !userInfo) return
    let current = true
    void Promise.all([getDeptSelect(userInfo.user_id), getRoleSelect(userInfo.user_id)]).then(
      ([d, r]) => {
        if (!current) return
        setDepts(d)
        setRoles(r)
        form.setFieldsValue({ deptId: userInfo.dept_id, roleId: userInfo.role_id })
      },
      () => undefined,
    )
    return () => {
      current = false
    }
  }, [open, userInfo, form])

  return (
    <Modal
      title={t('switchDialog.title')}
      open={open}
      onCancel={onClose}
      onOk={() => form.submit()}
      destroyOnHidden
    >
      <Form
        form={form}
        layout="vertical"
        onFinish={({ deptId, roleId }) =>
          void refreshSession(deptId, roleId).then(
            () => {
              void message.success(t('switchDialog.done'))
              onClose()
              window.location.reload()
            },
            () => undefined,
          )
        }
      >
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
    </Modal>
  )
}
