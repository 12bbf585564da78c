import { App, Form, Input, Modal, Typography } from 'antd'
import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import { registerGuest } from '../api/auth'
import { RequestError } from '../api/request'
import { checkRegister, type RegisterForm } from '../utils/validate'

interface Props {
  open: boolean
  /** Tenant resolved from the site address; when set, the tenant field is not shown. */
  resolvedTenantId: string | null
  initial?: Partial<RegisterForm>
  oauthId?: string
  onClose: () => void
  /** After a successful submission (the caller logs out). */
  onSubmitted: () => void
}

/**
 * "Account registration": checks the tenant id, the account, the passwords and that they match, in
 * that order, then POST register-guest.
 */
export default function RegisterDialog({
  open,
  resolvedTenantId,
  initial,
  oauthId = '',
  onClose,
  onSubmitted,
}: Props) {
  const { t } = useTranslation()
  const { message } = App.useApp()
  const [form] = Form.useForm<RegisterForm>()
  const [busy, setBusy] = useState(false)

  const submit = async () => {
    const values = form.getFieldsValue()
    const problem = checkRegister(values, resolvedTenantId !== null)
    if (problem) {
      void message.warning(t(problem))
      return
    }
    setBusy(true)
    try {
      await registerGuest({
        tenantId: resolvedTenantId ?? values.tenantId ?? '',
        name: values.name ?? '',
        account: values.account ?? '',
        password: values.password ?? '',
        oauthId,
      })
      void message.success(t('register.success'))
      onSubmitted()
    } catch (error) {
      const text = error instanceof RequestError && error.code !== 0 ? error.message : ''
      void message.error(text || t('register.failed'))
    } finally {
      setBusy(false)
    }
  }

  return (
    <Modal
      title={t('register.title')}
      open={open}
      okText={t('register.submit')}
      confirmLoading={busy}
      onOk={() => void submit()}
      onCancel={onClose}
      destroyOnHidden
      data-testid="register-dialog"
    >
      <Typography.Paragraph type="secondary" data-testid="register-note">
        {t('register.note')}
      </Typography.Paragraph>
      <Form form={form} layout="vertical" initialValues={initial} preserve={false}>
        {resolvedTenantId === null && (
          <Form.Item label={t('register.tenantId')} name="tenantId">
            <Input />
          </Form.Item>
        )}
        <Form.Item label={t('register.name')} name="name">
          <Input />
        </Form.Item>
        <Form.Item label={t('register.account')} name="account">
          <Input autoComplete="username" />
        </Form.Item>
        <Form.Item label={t('register.password')} name="password">
          <Input.Password autoComplete="new-password" />
        </Form.Item>
        <Form.Item label={t('register.password2')} name="password2">
          <Input.Password autoComplete="new-password" />
        </Form.Item>
      </Form>
    </Modal>
  )
}
