import { LockOutlined } from '@ant-design/icons'
import { Form, Input, Modal, Tooltip } from 'antd'
import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import { useNavigate } from 'react-router-dom'
import { useSessionStore } from '../../stores/session'

/** Lock: asks for a lock password first when none is set, then goes to /lock after 100 ms. */
export default function LockButton() {
  const { t } = useTranslation()
  const navigate = useNavigate()
  const [open, setOpen] = useState(false)
  const [form] = Form.useForm<{ password: string }>()

  const lockNow = () => {
    useSessionStore.getState().lock()
    window.setTimeout(() => void navigate('/lock'), 100)
  }

  const onClick = () => {
    if (useSessionStore.getState().lockPasswd) lockNow()
    else setOpen(true)
  }

  return (
    <>
      <Tooltip title={t('top.lock')}>
        <LockOutlined
          data-testid="lock-button"
          style={{ fontSize: 18, cursor: 'pointer' }}
          onClick={onClick}
        />
      </Tooltip>
      <Modal
        title={t('lockDialog.title')}
        open={open}
        destroyOnHidden
        onCancel={() => setOpen(false)}
        onOk={() => form.submit()}
        data-testid="lock-dialog"
      >
        <Form
          form={form}
          preserve={false}
          onFinish={({ password }) => {
            useSessionStore.getState().setLockPasswd(password)
            setOpen(false)
            lockNow()
          }}
        >
          <Form.Item
            label={t('lockDialog.password')}
            name="password"
            rules={[{ required: true, whitespace: true, message: t('lockDialog.required') }]}
          >
            <Input.Password data-testid="lock-password" autoFocus />
          </Form.Item>
        </Form>
      </Modal>
    </>
  )
}
